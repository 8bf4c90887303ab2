import type { Command } from "commander";
import {
  asJson,
  type CommandKit,
  collect,
  type GlobalOptions,
  terminalProgress,
  textOrJson,
} from "../command-kit.js";

export const examples: Record<string, string[]> = {
  run: [
    "run customers.create --input inputs/customers.create.json\n--mock mocks/customers.create.yaml",
    "run customers.retrieve --query customer_id=P000001",
    "run customers.create --input inputs/customers.create.json\n--record cassettes/create.yaml",
  ],
};

export function add(program: Command, { context, globals, outputFor }: CommandKit): void {
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
      const { runRun } = await import("../run.js");
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
          progress: terminalProgress(context, options),
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
}
