import type { Command } from "commander";
import type { CommandKit, GlobalOptions } from "../command-kit.js";

export const examples: Record<string, string[]> = {
  vault: ["vault list products", "vault get products savings"],
  "vault list": ["vault list", "vault list products"],
  "vault get": ["vault get products savings"],
  "vault set": [
    `vault set products savings\n'{"product_code":"SAV","min_deposit":"50.00"}'`,
    "vault set products partner_key - --secret < partner-key.txt",
  ],
  "vault delete": ["vault delete products savings"],
};

export function add(program: Command, { context, globals, outputFor }: CommandKit): void {
  const vault = program
    .command("vault")
    .description("the project's vaults: list them or their keys, get, set and delete items and secrets");
  globals(
    vault
      .command("list")
      .description("the vaults, or one vault's items and its secrets' keys (never their values)")
      .argument("[name]", "a vault"),
  ).action(async (name: string | undefined, options: GlobalOptions) => {
    const { runVaultList } = await import("../vault.js");
    context.exitCode = await runVaultList(name, vaultOptions(options), await outputFor(options));
  });
  globals(
    vault
      .command("get")
      .description("one item of a vault, as JSON")
      .argument("<name>", "the vault")
      .argument("<key>", "the item's key"),
  ).action(async (name: string, key: string, options: GlobalOptions) => {
    const { runVaultGet } = await import("../vault.js");
    context.exitCode = await runVaultGet(name, key, vaultOptions(options), await outputFor(options));
  });
  globals(
    vault
      .command("set")
      .description("set an item (JSON, else text), or a secret with --secret; - reads the value from stdin")
      .argument("<name>", "the vault")
      .argument("<key>", "the key")
      .argument("<value>", "the value, or - for standard input")
      .option(
        "--secret",
        "keep it as a secret: encrypted, and masked in every record once a run reads it",
        false,
      ),
  ).action(async (name: string, key: string, value: string, options: GlobalOptions & { secret: boolean }) => {
    const { runVaultSet } = await import("../vault.js");
    context.exitCode = await runVaultSet(name, key, value, options.secret, vaultOptions(options));
  });
  globals(
    vault
      .command("delete")
      .description("delete an item, or a secret with --secret")
      .argument("<name>", "the vault")
      .argument("<key>", "the key")
      .option("--secret", "delete the secret of that key", false),
  ).action(async (name: string, key: string, options: GlobalOptions & { secret: boolean }) => {
    const { runVaultDelete } = await import("../vault.js");
    context.exitCode = await runVaultDelete(name, key, options.secret, vaultOptions(options));
  });
  const vaultOptions = (options: GlobalOptions) => ({
    project: options.project,
    cwd: context.cwd,
    env: context.env,
    readStdin: context.readStdin,
  });
}
