import type { Command } from "commander";
import type { CommandKit, GlobalOptions } from "../command-kit.js";

export const examples: Record<string, string[]> = {
  list: ["list", "list --json --project samples"],
};

export function add(program: Command, { context, globals, outputFor }: CommandKit): void {
  globals(
    program
      .command("list")
      .description("list the project's integrations with their endpoints, systems and files")
      .option("--json", "print them as a JSON array", false),
  ).action(async (options: GlobalOptions & { json: boolean }) => {
    const { runList } = await import("../list.js");
    context.exitCode = await runList(
      { json: options.json, project: options.project, cwd: context.cwd, env: context.env },
      await outputFor(options),
    );
  });
}
