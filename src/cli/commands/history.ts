import { type Command, Option } from "commander";
import { type RunStatus, runTriggers } from "../../engine/types.js";
import { BassError } from "../../errors.js";
import type { HistoryFilter } from "../../history/store.js";
import { suggestion } from "../../suggest.js";
import {
  asJson,
  type CommandKit,
  type GlobalOptions,
  type JsonOptions,
  parseLimit,
  terminalProgress,
  textOrJson,
} from "../command-kit.js";

export const examples: Record<string, string[]> = {
  history: [
    "history --integration customers.create --status failure",
    "history show 01M80AN5Y62YTE3T5G3NSKQ4K3",
  ],
  "history list": ["history list --limit 5 --json"],
  "history show": ["history show 01M80AN5Y62YTE3T5G3NSKQ4K3", "history show latest~1 --json"],
  "history rerun": ["history rerun latest"],
  "history promote": ["history promote 01M80AN5Y62YTE3T5G3NSKQ4K3\n--out tests/found.test.yaml"],
};

const runStatuses: RunStatus[] = ["success", "failure", "running"];

export function add(program: Command, { context, globals, outputFor }: CommandKit): void {
  // `list` is the default, so `bass history --json` lists, and options after `show` are show's own.
  const history = program
    .command("history")
    .description(
      "the run history: list the runs (the default: bass history [options]), show one, run one again, or promote one to a test case",
    );
  globals(
    history
      .command("list", { isDefault: true })
      .description("list the project's runs, newest first")
      .option("--integration <name>", "only runs of this integration")
      .addOption(new Option("--status <status>", "only runs with this status").choices(runStatuses))
      .addOption(new Option("--trigger <trigger>", "only runs started by this").choices(runTriggers))
      .option("--label <label>", "only runs with this label")
      .option("--limit <n>", "at most this many runs", parseLimit, 20)
      .addOption(textOrJson())
      .option("--json", "print the records as a JSON array", false)
      // What follows `bass history` that is no subcommand reaches the default one: it is named below.
      .allowExcessArguments(true),
  ).action(async (options: GlobalOptions & HistoryFilter & JsonOptions, command: Command) => {
    const [unknown] = command.args;
    if (unknown !== undefined) {
      const known = history.commands.map((subcommand) => subcommand.name());
      throw new BassError("USAGE", `bass history has no subcommand ${unknown}${suggestion(unknown, known)}`);
    }
    const { runHistoryList } = await import("../history.js");
    const { integration, status, trigger, label, limit, project } = options;
    context.exitCode = await runHistoryList(
      { integration, status, trigger, label, limit },
      { json: asJson(options), project, cwd: context.cwd, env: context.env },
      await outputFor(options),
    );
  });
  globals(
    history
      .command("promote")
      .description("turn a recorded run into a test case (masked): printed, or added to --out FILE")
      .argument("<run>", "a run id, as bass history lists it, or latest, or latest~N (N runs before it)")
      .option("--out <file>", "the *.test.yaml file to add the case to (created when missing)"),
  ).action(async (id: string, options: GlobalOptions & { out?: string }) => {
    const { runHistoryPromote } = await import("../history.js");
    context.exitCode = await runHistoryPromote(
      id,
      { json: false, out: options.out, project: options.project, cwd: context.cwd, env: context.env },
      await outputFor(options),
    );
  });
  globals(
    history
      .command("rerun")
      .description("run a recorded run again with its request, against the systems as configured now")
      .argument("<run>", "a run id, as bass history lists it, or latest, or latest~N (N runs before it)")
      .addOption(textOrJson())
      .option("--json", "print { run_id, status, output, history } as JSON", false)
      .option("--verbose", "print every history item's masked data under the tree", false),
  ).action(async (id: string, options: GlobalOptions & JsonOptions & { verbose: boolean }) => {
    const { runHistoryRerun } = await import("../rerun.js");
    context.exitCode = await runHistoryRerun(
      id,
      {
        json: asJson(options),
        verbose: options.verbose,
        progress: terminalProgress(context, options),
        project: options.project,
        cwd: context.cwd,
        env: context.env,
        engine: context.engine,
      },
      await outputFor(options),
    );
  });
  globals(
    history
      .command("show")
      .description("one run as a tree of its history items")
      .argument("<run>", "a run id, as bass history lists it, or latest, or latest~N (N runs before it)")
      .addOption(textOrJson())
      .option("--json", "print the record as JSON", false),
  ).action(async (id: string, options: GlobalOptions & JsonOptions) => {
    const { runHistoryShow } = await import("../history.js");
    context.exitCode = await runHistoryShow(
      id,
      { json: asJson(options), project: options.project, cwd: context.cwd, env: context.env },
      await outputFor(options),
    );
  });
}
