import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Env } from "../definition/load.js";
import { maskText } from "../engine/masks.js";
import { BassError } from "../errors.js";
import { projectVaults } from "../project/vaults.js";
import type { Output } from "./output.js";
import { openProjectFile } from "./project-file.js";

export interface VaultCommandOptions {
  project?: string | undefined;
  cwd: string;
  env: Env;
  readStdin: () => Promise<string>;
}

/** How long a command waits for a vault a run holds. */
const waitMs = 5000;

/** The project's vaults, as `bass vault` reaches them. */
async function openVaults(options: VaultCommandOptions) {
  const project = await openProjectFile(options);
  return { project, store: projectVaults(project, options.env) };
}

/**
 * `bass vault list [name]`: the vaults (seeded in the project file, or kept in `.bass/vaults`), or one
 * vault's items as JSON and its secrets' keys. A secret's value is never printed.
 */
export async function runVaultList(name: string | undefined, options: VaultCommandOptions, output: Output) {
  const { project, store } = await openVaults(options);
  if (name === undefined) {
    const folder = join(project.dir, ".bass", "vaults");
    const kept = existsSync(folder)
      ? readdirSync(folder).flatMap((file) =>
          file.endsWith(".json") ? [file.slice(0, -".json".length)] : [],
        )
      : [];
    const names = [...new Set([...Object.keys(project.config.vaults ?? {}), ...kept])].sort();
    output.stdout(names.length ? `${names.join("\n")}\n` : output.paint.dim("(no vaults)\n"));
    return 0;
  }
  const { items, secretKeys } = await store.peek(name);
  const secrets = Object.fromEntries(secretKeys.map((key) => [key, maskText]));
  output.stdout(`${JSON.stringify({ items, secrets }, null, 2)}\n`);
  return 0;
}

/** `bass vault get <name> <key>`: one item, as JSON; exit 1 when the vault does not hold it. */
export async function runVaultGet(name: string, key: string, options: VaultCommandOptions, output: Output) {
  const { store } = await openVaults(options);
  const { items } = await store.peek(name);
  if (!Object.hasOwn(items, key)) {
    output.stderr(`bass: vault ${name} holds no item ${JSON.stringify(key)}\n`);
    return 1;
  }
  output.stdout(`${JSON.stringify(items[key], null, 2)}\n`);
  return 0;
}

/**
 * `bass vault set <name> <key> <value> [--secret]`: an item (the value as JSON, else as text), or with
 * `--secret` a secret, kept encrypted; `-` reads the value from standard input, which keeps a secret out
 * of the shell's history.
 */
export async function runVaultSet(
  name: string,
  key: string,
  value: string,
  secret: boolean,
  options: VaultCommandOptions,
) {
  const { store } = await openVaults(options);
  const text = value === "-" ? (await options.readStdin()).replace(/\r?\n$/, "") : value;
  await withVault(store, name, (vault) => {
    if (secret) vault.upsert_secret(key, text);
    else vault.upsert(key, parsed(text));
  });
  return 0;
}

/** `bass vault delete <name> <key> [--secret]`. */
export async function runVaultDelete(
  name: string,
  key: string,
  secret: boolean,
  options: VaultCommandOptions,
) {
  const { store } = await openVaults(options);
  await withVault(store, name, (vault) => (secret ? vault.delete_secret(key) : vault.delete(key)));
  return 0;
}

async function withVault(
  store: ReturnType<typeof projectVaults>,
  name: string,
  work: (vault: Awaited<ReturnType<typeof store.open>>["vault"]) => void,
): Promise<void> {
  const held = await store
    .open(name, performance.now() + waitMs, { add: () => {}, holds: () => false })
    .catch((error: unknown) => {
      throw error instanceof BassError && error.code === "VAULT_BUSY"
        ? new BassError("USAGE", `vault ${name} is held by a run: try again once it has ended`)
        : error;
    });
  try {
    work(held.vault);
  } finally {
    held.release();
  }
}

/** A value given on the command line: JSON when it is JSON (`42`, `{"limit":5}`), else text. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
