import { readFileSync } from "node:fs";
import { Command } from "commander";
import {
  type CommandFile,
  type CommandKit,
  collect,
  type GlobalOptions,
  invokedAs,
  type ProgramContext,
} from "./command-kit.js";
import * as completion from "./commands/completion.js";
import * as history from "./commands/history.js";
import * as importer from "./commands/import.js";
import * as init from "./commands/init.js";
import * as list from "./commands/list.js";
import * as mockcore from "./commands/mockcore.js";
import * as openapi from "./commands/openapi.js";
import * as run from "./commands/run.js";
import * as serve from "./commands/serve.js";
import * as test from "./commands/test.js";
import * as validate from "./commands/validate.js";
import * as vault from "./commands/vault.js";
import type { Writers } from "./output.js";

/** The version of the installed package. */
export const version: string = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
).version;

/** The commands, in the order `bass --help` lists them; each file holds its options and its action. */
const commands: CommandFile[] = [
  validate,
  run,
  serve,
  init,
  list,
  importer,
  vault,
  openapi,
  test,
  history,
  mockcore,
  completion,
];

/** The examples of `bass --help` itself. */
const programExamples: Record<string, string[]> = {
  "": ["init my-project", "validate --project my-project", "test --project my-project"],
};

/** The program: its global options, each command's file, and every help's examples. */
export function createProgram(context: ProgramContext): Command {
  const program = new Command("bass")
    .description("Lint, run, test and serve banking integrations on your own machine and in CI.")
    .version(version, "-v, --version")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => context.write.stdout(text),
      writeErr: (text) => context.write.stderr(text),
      // Help wraps to the terminal bass writes to (80 columns off one), as the run tree cuts to it.
      getOutHelpWidth: () => context.write.columns ?? 80,
      getErrHelpWidth: () => context.write.columns ?? 80,
    });
  // Before any command: BASS_PROJECT stands for --project, and --env-file adds to the environment.
  program.hook("preAction", async (_program, action) => {
    const options = action.opts<GlobalOptions>();
    if (options.project === undefined && context.env.BASS_PROJECT)
      action.setOptionValue("project", context.env.BASS_PROJECT);
    if (options.envFile?.length) {
      const { withEnvFiles } = await import("./env-files.js");
      context.env = withEnvFiles(context.env, options.envFile, context.cwd);
    }
  });
  const kit: CommandKit = {
    context,
    version,
    globals,
    // output.js loads chalk, whose colour detection costs more than the rest of `bass --version`.
    outputFor: async (options) => {
      const { createOutput } = await import("./output.js");
      const write = options.quiet ? quietWriters(context.write) : context.write;
      return createOutput({ color: options.color && !context.env.NO_COLOR, write });
    },
  };
  for (const command of commands) command.add(program, kit);
  const examples: Record<string, string[]> = Object.assign(
    {},
    programExamples,
    ...commands.map((command) => command.examples),
  );

  // A mistake in a command's options points at that command's own help, as the user runs bass; each
  // help ends in examples, written the same way.
  const as = invokedAs(context.env);
  const finish = (command: Command, name: string) => {
    command.showHelpAfterError(
      name ? `(${as} ${name} --help lists its options)` : `(${as} --help lists the commands and options)`,
    );
    const lines = examples[name];
    if (lines)
      command.addHelpText(
        "after",
        `\nExamples:\n${lines.map((line) => `  $ ${as} ${shellLines(line)}\n`).join("")}`,
      );
  };
  finish(program, "");
  for (const command of program.commands) {
    finish(command, command.name());
    for (const sub of command.commands) finish(sub, `${command.name()} ${sub.name()}`);
  }
  return program;
}

/** A command with the options every command of a project takes. */
function globals(command: Command): Command {
  return command
    .option(
      "--project <dir>",
      "the folder of bass.config.yaml (default: BASS_PROJECT, else found from the current folder upwards)",
    )
    .option(
      "--env-file <file>",
      "read variables from a dotenv file (the environment wins); repeatable",
      collect,
      [],
    )
    .option("--no-color", "no colour, also when the terminal has it (NO_COLOR is honoured too)")
    .option("--quiet", "print results and errors only: no warnings, progress or notes on stderr", false);
}

/**
 * `--quiet`: stderr keeps bass's errors and drops its warnings, progress and notes. An error is written
 * whole, in one call that starts `bass: `, so its further lines (a finding's place, a list) stay with it.
 */
function quietWriters(write: Writers): Writers {
  return {
    ...write,
    stderr: (text) => {
      if (text.startsWith("bass: ")) write.stderr(text);
    },
  };
}

/** An example's lines as a shell continues them: ` \` at the end, the next one indented. */
function shellLines(example: string): string {
  return example.replaceAll("\n", " \\\n      ");
}
