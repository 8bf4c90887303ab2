import { type Command, Option } from "commander";
import { type TestReporter, testReporters } from "../choices.js";
import {
  type CommandKit,
  type GlobalOptions,
  invokedAs,
  parsePercent,
  terminalProgress,
} from "../command-kit.js";

export const examples: Record<string, string[]> = {
  test: [
    "test",
    "test tests/customers.create.test.yaml --update",
    "test --grep transfer --shard 1/2",
    "test --coverage --coverage-threshold 80",
  ],
};

export function add(program: Command, { context, globals, outputFor }: CommandKit): void {
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
      .option("--pass-with-no-tests", "exit 0 when there is no *.test.yaml file, not 2", false)
      .option("--watch", "run the suite again on every change to the project's files, until Ctrl-C", false)
      .option(
        "--coverage",
        "report which cells, conditions, service requests, mappings, rules and masks the suite reached",
        false,
      )
      .option("--coverage-dir <dir>", "where --coverage writes lcov.info and cobertura.xml", "coverage")
      .option(
        "--coverage-threshold <percent>",
        "with --coverage: exit 1 when less than this share of the definitions' lines was reached",
        parsePercent,
      ),
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
        passWithNoTests: boolean;
        watch: boolean;
        coverage: boolean;
        coverageDir: string;
        coverageThreshold?: number;
      },
    ) => {
      const { runTestCommand } = await import("../test.js");
      // A progress line only where a person watches: the process's own terminal.
      const progress = terminalProgress(context, options);
      const run = options.watch ? (await import("../test-watch.js")).watchTests : runTestCommand;
      context.exitCode = await run(
        paths,
        {
          reporter: options.format ?? options.reporter,
          command: invokedAs(context.env),
          update: options.update,
          grep: options.grep,
          shard: options.shard,
          bail: options.bail,
          passWithNoTests: options.passWithNoTests,
          project: options.project,
          cwd: context.cwd,
          env: context.env,
          progress,
          engine: context.engine,
          // A threshold asks for coverage too.
          coverage:
            options.coverage || options.coverageThreshold !== undefined
              ? { dir: options.coverageDir, threshold: options.coverageThreshold }
              : undefined,
        },
        await outputFor(options),
      );
    },
  );
}
