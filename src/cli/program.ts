import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import { type IssueFormat, issueFormats } from "./formats/format-issues.js";
import { createOutput, type Writers } from "./output.js";

/** The version of the installed package. */
export const version: string = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
).version;

export interface ProgramContext {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  write: Writers;
  /** Set by the command that ran: the process's exit code. */
  exitCode: number;
}

interface GlobalOptions {
  project?: string;
  color: boolean;
}

/** Commander wiring only: each command's work is in its own file, imported when it runs so `--help` starts fast. */
export function createProgram(context: ProgramContext): Command {
  const program = new Command("bass")
    .description("Lint, run, test and serve banking integrations on your own machine and in CI.")
    .version(version, "-v, --version")
    .exitOverride()
    .showHelpAfterError("(bass --help lists the commands and options)")
    .configureOutput({
      writeOut: (text) => context.write.stdout(text),
      writeErr: (text) => context.write.stderr(text),
    });

  const globals = (command: Command) =>
    command
      .option(
        "--project <dir>",
        "the folder of bass.config.yaml (default: found from the current folder upwards)",
      )
      .option("--no-color", "no colour, also when the terminal has it (NO_COLOR is honoured too)");
  const outputFor = (options: GlobalOptions) =>
    createOutput({ color: options.color && !context.env.NO_COLOR, write: context.write });

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
    const { runValidate } = await import("./validate.js");
    context.exitCode = runValidate(
      paths,
      {
        format: options.format,
        strict: options.strict,
        project: options.project,
        cwd: context.cwd,
        env: context.env,
        version,
      },
      outputFor(options),
    );
  });

  return program;
}
