import type { Command } from "commander";
import type { CommandKit, GlobalOptions } from "../command-kit.js";

export const examples: Record<string, string[]> = {
  openapi: ["openapi --out openapi.json"],
};

export function add(program: Command, { context, globals, outputFor }: CommandKit): void {
  globals(
    program
      .command("openapi")
      .description("print the OpenAPI 3.1 document of the endpoints bass serve answers")
      .option("--out <file>", "write it to this file instead of standard output"),
  ).action(async (options: GlobalOptions & { out?: string }) => {
    const { runOpenApi } = await import("../openapi.js");
    context.exitCode = await runOpenApi(
      { out: options.out, project: options.project, cwd: context.cwd, env: context.env },
      await outputFor(options),
    );
  });
}
