import { type Command, Option } from "commander";
import { type IssueFormat, issueFormats } from "../choices.js";
import type { CommandKit, GlobalOptions } from "../command-kit.js";

export const examples: Record<string, string[]> = {
  validate: [
    "validate",
    "validate integrations/customers.create.yaml",
    "validate --format sarif > bass.sarif",
  ],
};

export function add(program: Command, { context, version, globals, outputFor }: CommandKit): void {
  globals(
    program
      .command("validate")
      .description(
        "check definitions and the project file: schema and semantic rules, with file:line:col findings",
      )
      .argument("[paths...]", "definition files or folders (default: the whole project)")
      .addOption(new Option("--format <format>", "output format").choices(issueFormats).default("text"))
      .option("--strict", "fail on warnings too", false),
  ).action(async (paths: string[], options: GlobalOptions & { format: IssueFormat; strict: boolean }) => {
    const { runValidate } = await import("../validate.js");
    context.exitCode = await runValidate(
      paths,
      {
        format: options.format,
        strict: options.strict,
        project: options.project,
        cwd: context.cwd,
        env: context.env,
        version,
      },
      await outputFor(options),
    );
  });
}
