import { readFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import type { Engine } from "../engine/engine.js";
import { type RunStatus, runTriggers } from "../engine/types.js";
import { BassError } from "../errors.js";
import type { HistoryFilter } from "../history/store.js";
import { suggestion } from "../suggest.js";
import { type IssueFormat, issueFormats, type TestReporter, testReporters } from "./choices.js";
import type { MockcoreCommandOptions } from "./mockcore.js";
import type { Output, Writers } from "./output.js";
import { processWriters } from "./process-writers.js";

/** The version of the installed package. */
export const version: string = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
).version;

export interface ProgramContext {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  write: Writers;
  readStdin: () => Promise<string>;
  /** The process's engine, for the commands that run cells (see guardCellRejections). */
  engine?: Engine | undefined;
  /** Set by the command that ran: the process's exit code. */
  exitCode: number;
}

const runStatuses: RunStatus[] = ["success", "failure", "running"];

interface GlobalOptions {
  project?: string;
  color: boolean;
  envFile?: string[];
}

/** Commander wiring only: each command's work is in its own file, imported when it runs so `--help` starts fast. */
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

  const globals = (command: Command) =>
    command
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
      .option("--no-color", "no colour, also when the terminal has it (NO_COLOR is honoured too)");
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
  // output.js loads chalk, whose colour detection costs more than the rest of `bass --version`.
  const outputFor = async (options: GlobalOptions): Promise<Output> => {
    const { createOutput } = await import("./output.js");
    return createOutput({ color: options.color && !context.env.NO_COLOR, write: context.write });
  };

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

  globals(
    program
      .command("run")
      .description(
        "run one integration against an input, with mocked or real systems; print its output and masked history",
      )
      .argument("<name>", "the integration's name, e.g. customers.create")
      .option("--input <file>", "the request body as JSON, or - for standard input (default: {})")
      .option("--input-envelope", "the input file is { payload, method, path, params, headers }", false)
      .option("--method <method>", "the request's method (default: the endpoint's)")
      .option("--query <name=value>", "a query parameter (input.params); repeatable", collect, [])
      .option("--path <name=value>", "a path parameter (input.path); repeatable", collect, [])
      .option("--header <header>", 'a request header, "Name: value"; repeatable', collect, [])
      .option("--file <name=path>", "a file of the request (input.files.name); repeatable", collect, [])
      .option(
        "--mock <file>",
        "answer service requests from this file (YAML or JSON) instead of calling systems",
      )
      .option(
        "--record <file>",
        "keep every adapter exchange of the run, masked, in a cassette (YAML; JSON by extension)",
      )
      .option("--replay <file>", "answer service requests from a cassette that --record wrote")
      .addOption(textOrJson())
      .option("--json", "print { run_id, status, output, history } as JSON and nothing else", false)
      .option("--verbose", "print every history item's masked data as YAML under the tree", false)
      .option(
        "--isolate",
        "run in a worker thread with the heap limit of limits.cell_memory_mb, as bass serve runs integrations",
        false,
      ),
  ).action(
    async (
      name: string,
      options: GlobalOptions & {
        input?: string;
        inputEnvelope: boolean;
        method?: string;
        query: string[];
        path: string[];
        header: string[];
        file: string[];
        mock?: string;
        record?: string;
        replay?: string;
        json: boolean;
        format?: string;
        verbose: boolean;
        isolate: boolean;
      },
    ) => {
      const { runRun } = await import("./run.js");
      const { input, inputEnvelope, mock, record, replay, isolate, project } = options;
      const json = asJson(options);
      context.exitCode = await runRun(
        name,
        {
          input,
          inputEnvelope,
          method: options.method,
          query: options.query,
          path: options.path,
          header: options.header,
          file: options.file,
          mock,
          record,
          replay,
          json,
          verbose: options.verbose,
          // On a terminal a line says what a slow call waits on.
          progress: terminalProgress(context),
          isolate,
          project,
          cwd: context.cwd,
          env: context.env,
          readStdin: context.readStdin,
          engine: context.engine,
        },
        await outputFor(options),
      );
    },
  );

  // `list` is the default, so `bass history --json` lists, and options after `show` are show's own.
  globals(
    program
      .command("serve")
      .description("answer the project's endpoints as a local REST API")
      .option("--port <n>", "the port (default: serve.port, 3000)", parsePort)
      .option("--host <host>", "the address to listen on (default: serve.host, 127.0.0.1)")
      .option("--watch", "reload definitions and the project file when they change", false)
      .option("--insecure", "listen on a non-loopback address without auth", false),
  ).action(
    async (options: GlobalOptions & { port?: number; host?: string; watch: boolean; insecure: boolean }) => {
      const { runServe } = await import("./serve.js");
      const { port, host, watch, insecure, project } = options;
      context.exitCode = await runServe(
        { port, host, watch, insecure, project, cwd: context.cwd, env: context.env, engine: context.engine },
        await outputFor(options),
      );
    },
  );
  program
    .command("init")
    .description("make a new project that validates, runs and passes its test as it is")
    .argument("[dir]", "the folder to make it in (default: the current folder)")
    .addOption(
      new Option("--template <template>", "starter: one integration; samples: the six samples")
        .choices(["starter", "samples"])
        .default("starter"),
    )
    .option("--no-color", "no colour, also when the terminal has it (NO_COLOR is honoured too)")
    .action(async (dir: string | undefined, options: { template: "starter" | "samples"; color: boolean }) => {
      const { runInit } = await import("./init.js");
      context.exitCode = runInit(
        dir,
        { template: options.template, cwd: context.cwd, command: invokedAs(context.env) },
        await outputFor({ ...options, project: undefined }),
      );
    });

  globals(
    program
      .command("list")
      .description("list the project's integrations with their endpoints, systems and files")
      .option("--json", "print them as a JSON array", false),
  ).action(async (options: GlobalOptions & { json: boolean }) => {
    const { runList } = await import("./list.js");
    context.exitCode = await runList(
      { json: options.json, project: options.project, cwd: context.cwd, env: context.env },
      await outputFor(options),
    );
  });

  const importer = program
    .command("import")
    .description(
      "make a bass project of another platform's export: glyue (Glyue, now nCino Integration Gateway)",
    );
  importer
    .command("glyue")
    .description(
      "convert a Glyue (nCino Integration Gateway) integration export into a bass project: a definition per integration with its Python cells, bass.config.yaml with the systems and vaults, and IMPORT-REPORT.md listing what could not be carried over (printed too); writes over no file",
    )
    .argument("<export>", "the export: the platform's JSON file of tables (integration, servicerequest, …)")
    .option("--out <dir>", "the folder to write the project in (default: the current folder)")
    .option("--no-color", "no colour, also when the terminal has it (NO_COLOR is honoured too)")
    .action(async (file: string, options: { out?: string; color: boolean }) => {
      const { runImportGlyue } = await import("./import-glyue.js");
      context.exitCode = runImportGlyue(
        file,
        { out: options.out, cwd: context.cwd, command: invokedAs(context.env) },
        await outputFor({ ...options, project: undefined }),
      );
    });

  const vault = program
    .command("vault")
    .description("the project's vaults: list them or their keys, get, set and delete items and secrets");
  globals(
    vault
      .command("list")
      .description("the vaults, or one vault's items and its secrets' keys (never their values)")
      .argument("[name]", "a vault"),
  ).action(async (name: string | undefined, options: GlobalOptions) => {
    const { runVaultList } = await import("./vault.js");
    context.exitCode = await runVaultList(name, vaultOptions(options), await outputFor(options));
  });
  globals(
    vault
      .command("get")
      .description("one item of a vault, as JSON")
      .argument("<name>", "the vault")
      .argument("<key>", "the item's key"),
  ).action(async (name: string, key: string, options: GlobalOptions) => {
    const { runVaultGet } = await import("./vault.js");
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
    const { runVaultSet } = await import("./vault.js");
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
    const { runVaultDelete } = await import("./vault.js");
    context.exitCode = await runVaultDelete(name, key, options.secret, vaultOptions(options));
  });
  const vaultOptions = (options: GlobalOptions) => ({
    project: options.project,
    cwd: context.cwd,
    env: context.env,
    readStdin: context.readStdin,
  });

  globals(
    program
      .command("openapi")
      .description("print the OpenAPI 3.1 document of the endpoints bass serve answers")
      .option("--out <file>", "write it to this file instead of standard output"),
  ).action(async (options: GlobalOptions & { out?: string }) => {
    const { runOpenApi } = await import("./openapi.js");
    context.exitCode = await runOpenApi(
      { out: options.out, project: options.project, cwd: context.cwd, env: context.env },
      await outputFor(options),
    );
  });

  globals(
    program
      .command("test")
      .description("run the cases of *.test.yaml files and report them")
      .argument("[paths...]", "test files or folders (default: every *.test.yaml of the project)")
      .addOption(new Option("--format <format>", "report format (as --reporter)").choices(testReporters))
      .addOption(new Option("--reporter <reporter>", "report format").choices(testReporters).default("text"))
      .option("--update", "rewrite the expect.output of each case whose output differs (masked)", false)
      .option("--grep <regex>", "run only the cases whose name (or file and name) matches")
      .option("--shard <i/n>", "run only the i-th of n stable parts of the suite (CI machines)")
      .option("--bail", "start no case after the first that fails", false)
      .option("--watch", "run the suite again on every change to the project's files, until Ctrl-C", false),
  ).action(
    async (
      paths: string[],
      options: GlobalOptions & {
        reporter: TestReporter;
        format?: TestReporter;
        update: boolean;
        grep?: string;
        shard?: string;
        bail: boolean;
        watch: boolean;
      },
    ) => {
      const { runTestCommand } = await import("./test.js");
      // A progress line only where a person watches: the process's own terminal.
      const progress = terminalProgress(context);
      const run = options.watch ? (await import("./test-watch.js")).watchTests : runTestCommand;
      context.exitCode = await run(
        paths,
        {
          reporter: options.format ?? options.reporter,
          command: invokedAs(context.env),
          update: options.update,
          grep: options.grep,
          shard: options.shard,
          bail: options.bail,
          project: options.project,
          cwd: context.cwd,
          env: context.env,
          progress,
          engine: context.engine,
        },
        await outputFor(options),
      );
    },
  );

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
    const { runHistoryList } = await import("./history.js");
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
    const { runHistoryPromote } = await import("./history.js");
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
    const { runHistoryRerun } = await import("./rerun.js");
    context.exitCode = await runHistoryRerun(
      id,
      {
        json: asJson(options),
        verbose: options.verbose,
        progress: terminalProgress(context),
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
    const { runHistoryShow } = await import("./history.js");
    context.exitCode = await runHistoryShow(
      id,
      { json: asJson(options), project: options.project, cwd: context.cwd, env: context.env },
      await outputFor(options),
    );
  });

  globals(
    program
      .command("mockcore")
      .description("serve the mock core banking system (its demo data, or a data file) until Ctrl-C")
      .option("--port <n>", "the port to listen on (0: any free port)", parsePort, 4010)
      .option("--host <host>", "the address to listen on", "127.0.0.1")
      .option("--data <file>", "keep the core's state in this JSON file (default: in memory)")
      .option("--latency <ms>", "wait this many milliseconds before each answer", parseMilliseconds)
      .option("--error-rate <r>", "share of requests (0 to 1) answered 500", parseRate)
      .option(
        "--reset-rate <r>",
        "share of requests (0 to 1) whose connection drops after the work is done",
        parseRate,
      )
      .option(
        "--malformed-rate <r>",
        "share of requests (0 to 1) answered 200 with a body that is not JSON",
        parseRate,
      ),
  ).action(async (options: GlobalOptions & Omit<MockcoreCommandOptions, "cwd" | "stopped">) => {
    const { runMockcore } = await import("./mockcore.js");
    const { port, host, data, latency, errorRate, resetRate, malformedRate } = options;
    context.exitCode = await runMockcore(
      { port, host, data, latency, errorRate, resetRate, malformedRate, cwd: context.cwd },
      await outputFor(options),
    );
  });

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

/** `--port`: a whole number from 0 to 65535. */
function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new InvalidArgumentError("give a port from 0 to 65535");
  return Number(text);
}

/** `--latency`: a whole number of milliseconds, 0 or more. */
function parseMilliseconds(text: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new InvalidArgumentError("give a whole number of milliseconds");
  return Number(text);
}

/** A rate: a number from 0 to 1, such as 0.2. */
function parseRate(text: string): number {
  const rate = Number(text);
  if (!/^\d*\.?\d+$/.test(text) || rate > 1)
    throw new InvalidArgumentError("give a number from 0 to 1, such as 0.2");
  return rate;
}

/** `--limit`: a whole number of runs, 1 or more. */
function parseLimit(text: string): number {
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1) throw new InvalidArgumentError("give a whole number of 1 or more");
  return limit;
}

/** How the user ran bass, for commands bass prints: `npx bass` when npx ran it, else `bass`. */
export function invokedAs(env: Readonly<Record<string, string | undefined>>): string {
  return env.npm_command === "exec" ? "npx bass" : "bass";
}

/** Commander's way to take an option more than once: each value is added to the list. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** An example's lines as a shell continues them: ` \` at the end, the next one indented. */
function shellLines(example: string): string {
  return example.replaceAll("\n", " \\\n      ");
}

/** One to three examples of each command, shown at the end of its --help; `\n` breaks one that would not fit 80 columns. */
const examples: Record<string, string[]> = {
  "": ["init my-project", "validate --project my-project", "test --project my-project"],
  init: ["init my-project", "init my-project --template samples"],
  list: ["list", "list --json --project samples"],
  import: ["import glyue export.json --out my-project"],
  "import glyue": ["import glyue export.json --out my-project"],
  validate: [
    "validate",
    "validate integrations/customers.create.yaml",
    "validate --format sarif > bass.sarif",
  ],
  run: [
    "run customers.create --input inputs/customers.create.json\n--mock mocks/customers.create.yaml",
    "run customers.retrieve --query customer_id=P000001",
    "run customers.create --input inputs/customers.create.json\n--record cassettes/create.yaml",
  ],
  serve: ["serve", "serve --watch --port 8080"],
  openapi: ["openapi --out openapi.json"],
  test: ["test", "test tests/customers.create.test.yaml --update", "test --grep transfer --shard 1/2"],
  history: [
    "history --integration customers.create --status failure",
    "history show 01M80AN5Y62YTE3T5G3NSKQ4K3",
  ],
  "history list": ["history list --limit 5 --json"],
  "history show": ["history show 01M80AN5Y62YTE3T5G3NSKQ4K3", "history show latest~1 --json"],
  "history rerun": ["history rerun latest"],
  vault: ["vault list products", "vault get products savings"],
  "vault list": ["vault list", "vault list products"],
  "vault get": ["vault get products savings"],
  "vault set": [
    `vault set products savings\n'{"product_code":"SAV","min_deposit":"50.00"}'`,
    "vault set products partner_key - --secret < partner-key.txt",
  ],
  "vault delete": ["vault delete products savings"],
  "history promote": ["history promote 01M80AN5Y62YTE3T5G3NSKQ4K3\n--out tests/found.test.yaml"],
  mockcore: ["mockcore --port 4010 --data .bass/core.json", "mockcore --latency 200 --error-rate 0.1"],
};

/** `--json`, or `--format json`: the one idea under its two names. */
interface JsonOptions {
  json: boolean;
  format?: string;
}

function asJson(options: JsonOptions): boolean {
  return options.json || options.format === "json";
}

/** `--format text|json`: the same as `--json`, under the name `test` and `validate` use. */
function textOrJson(): Option {
  return new Option("--format <format>", "output format (json: as --json)").choices(["text", "json"]);
}

/** Where a line for a person watching goes: the process's own stderr, when it is a terminal. */
function terminalProgress(context: ProgramContext): ((text: string) => void) | undefined {
  return context.write === processWriters && process.stderr.isTTY
    ? (text: string) => void process.stderr.write(text)
    : undefined;
}
