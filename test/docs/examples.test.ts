import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copySamples, createTempDir } from "../_helpers.js";
import {
  consoleExamples,
  fencedBlockAfter,
  normalize,
  pairRunIds,
  repoRoot,
  runExample,
  startExample,
  withBassInstalled,
  withRunIds,
} from "./_examples.js";
import { markdownBlocks } from "./_markdown.js";

// docs/tutorial.md has a test of its own (tutorial.test.ts), which runs its steps in order.
// docs/architecture.md and bench/README.md hold no command blocks; a test below checks they stay so.
const docs = [
  "README.md",
  "docs/behaviour.md",
  "docs/cli.md",
  "docs/ci.md",
  "docs/mockcore.md",
  "docs/coverage.md",
];

/** A command of the docs, where it stands, and the output a console block shows under it. */
interface DocExample {
  where: string;
  command: string;
  output?: string;
}

/**
 * The folder an example runs in, made anew for it:
 * - `empty`: a new folder (`bass init`, `--help`, the mock core);
 * - `project`: a copy of `samples/` as the current folder, a project at the repository root as in CI;
 * - `checkout`: a folder holding a copy of `samples/` as `samples/`, this repository's root, from
 *   which the README runs `--project samples`;
 * - `tutorial`: the project of docs/tutorial.md with the two mistakes of its step 3 fixed, as
 *   docs/cli.md's outputs of `customers.onboard` show it;
 * - `tutorial-step-4`: that project with its two mistakes still in it;
 * - `glyue`: a new folder holding test/fixtures/glyue/export.json as `export.json`, for `bass import glyue`.
 */
type Folder = "empty" | "project" | "checkout" | "tutorial" | "tutorial-step-4" | "glyue";

/** How one example runs. */
interface HowItRuns {
  folder: Folder;
  /** Commands run first in the folder, each to exit 0; run ids they print stand for the example's. */
  before?: string[];
  /** The exit code; for a long-running command, once it is stopped as Ctrl-C stops it. */
  exit: number;
  /** A command run instead of the one written, and why. */
  instead?: { command: string; why: string };
  /** A long-running command: the line it prints within a few seconds of starting; it is then stopped. */
  started?: RegExp;
  /** A file the command writes, relative to the folder. */
  writes?: string;
}

// Ports 3000 (serve's default), 4010 (mockcore's) and 8080 may be taken on a shared machine, so the
// long-running examples that use them listen on a free port instead. 4011, which no default or other
// test uses, is run as written: docs/cli.md shows its start line, which names the port.
const freePort = "3000, 4010 and 8080 may be taken on a shared machine: a free port";
const home = "a test writes nothing into the home folder of whoever runs it";
const samplesRun =
  "npx bass run customers.create --project samples --input samples/inputs/customers.create.json --mock samples/mocks/customers.create.yaml";
const projectRun =
  "npx bass run customers.create --input inputs/customers.create.json --mock mocks/customers.create.yaml";
const stdinRun = `echo '{"first_name":"Ada"}' | npx bass run customers.create --project samples --input - --mock samples/mocks/customers.create.yaml`;
const samplesRetrieve =
  "npx bass run customers.retrieve --project samples --input-envelope --input samples/inputs/customers.retrieve.json --mock samples/mocks/customers.retrieve.yaml --json";
const projectRetrieve = "npx bass run customers.retrieve --query customer_id=P000001";
const onboardRun = "npx bass run customers.onboard --input inputs/grace.json --mock mocks/core-created.yaml";
const init = "npx bass init my-project";
const serveStarted = /^bass serve listening on http:\/\/127\.0\.0\.1:\d+ /m;
const mockcoreStarted = /^mockcore listening on http:\/\/127\.0\.0\.1:\d+/m;

/** Every command of the docs, by its text as written (help examples as `npx bass …`). */
const examples: Record<string, HowItRuns> = {
  // README.md
  [`npm ci && ${samplesRun}`]: {
    folder: "checkout",
    exit: 0,
    instead: {
      command: samplesRun,
      why: "npm ci installs from the registry; this checkout is installed and built",
    },
  },
  [init]: { folder: "empty", exit: 0, writes: "my-project/bass.config.yaml" },
  "npx bass init my-samples --template samples": {
    folder: "empty",
    exit: 0,
    writes: "my-samples/integrations/customers.create.yaml",
  },
  "npx bass list --project my-project": { folder: "empty", before: [init], exit: 0 },
  "npx bass validate": { folder: "project", exit: 0 },
  "npx bass validate --project samples": { folder: "checkout", exit: 0 },
  "npx bass validate integrations/customers.create.yaml": { folder: "project", exit: 0 },
  "npx bass validate --format sarif > bass.sarif": { folder: "project", exit: 0, writes: "bass.sarif" },
  [samplesRun]: { folder: "checkout", exit: 0 },
  [samplesRetrieve]: { folder: "checkout", exit: 0 },
  // A body of a first name alone fails the sample's validation rules: a run that ends in failure.
  [stdinRun]: { folder: "checkout", exit: 1 },
  "npx bass mockcore --port 4010 --data .bass/core.json": {
    folder: "empty",
    exit: 0,
    instead: { command: "npx bass mockcore --port 0 --data .bass/core.json", why: freePort },
    started: mockcoreStarted,
    writes: ".bass/core.json",
  },
  "npx bass mockcore --latency 200 --error-rate 0.1 --reset-rate 0.05 --malformed-rate 0.05": {
    folder: "empty",
    exit: 0,
    instead: {
      command:
        "npx bass mockcore --latency 200 --error-rate 0.1 --reset-rate 0.05 --malformed-rate 0.05 --port 0",
      why: freePort,
    },
    started: mockcoreStarted,
  },
  "npx bass serve --project samples": {
    folder: "checkout",
    exit: 0,
    instead: { command: "npx bass serve --project samples --port 0", why: freePort },
    started: serveStarted,
  },
  "npx bass serve --project samples --watch --port 8080": {
    folder: "checkout",
    exit: 0,
    instead: { command: "npx bass serve --project samples --watch --port 0", why: freePort },
    started: serveStarted,
  },
  "npx bass openapi --project samples --out openapi.json": {
    folder: "checkout",
    exit: 0,
    writes: "openapi.json",
  },
  "npx bass history --project samples": { folder: "checkout", before: [samplesRun], exit: 0 },
  "npx bass history --project samples --status failure --integration customers.create --label vip --limit 5":
    {
      folder: "checkout",
      before: [samplesRun],
      exit: 0,
    },
  "npx bass history --project samples --trigger cli": { folder: "checkout", before: [samplesRun], exit: 0 },
  "npx bass history show 01M80AN5Y62YTE3T5G3NSKQ4K3 --project samples": {
    folder: "checkout",
    before: [samplesRun],
    exit: 0,
  },
  "npx bass history show 01M80AN5Y62YTE3T5G3NSKQ4K3 --project samples --json": {
    folder: "checkout",
    before: [samplesRun],
    exit: 0,
  },
  "npx bass history show latest --project samples": { folder: "checkout", before: [samplesRun], exit: 0 },
  // A re-run of a `bass run` sends the request its record holds, masked values and all (a tax id the
  // rules then refuse), so the run re-run is one with nothing masked.
  "npx bass history rerun 01M80AN5Y62YTE3T5G3NSKQ4K3 --project samples": {
    folder: "checkout",
    before: [samplesRetrieve],
    exit: 0,
  },
  "npx bass test --project samples": { folder: "checkout", exit: 0 },
  "npx bass test samples/tests/customers.create.test.yaml --reporter junit > bass-junit.xml": {
    folder: "checkout",
    exit: 0,
    writes: "bass-junit.xml",
  },
  "npx bass test --project samples --update": { folder: "checkout", exit: 0 },
  'npx bass test --project samples --grep "mock core"': { folder: "checkout", exit: 0 },
  "npx bass test --project samples --shard 2/3 --bail": { folder: "checkout", exit: 0 },
  "npx bass test --project samples --watch": {
    folder: "checkout",
    exit: 0,
    started: /^watching for changes/m,
  },
  "npx bass history promote 01M80AN5Y62YTE3T5G3NSKQ4K3 --project samples --out samples/tests/found.test.yaml":
    {
      folder: "checkout",
      before: [samplesRun],
      exit: 0,
      writes: "samples/tests/found.test.yaml",
    },

  // docs/cli.md: the --help texts, and the examples they hold
  "npx bass --help": { folder: "empty", exit: 0 },
  "npx bass init --help": { folder: "empty", exit: 0 },
  "npx bass list --help": { folder: "empty", exit: 0 },
  "npx bass import --help": { folder: "empty", exit: 0 },
  "npx bass import glyue --help": { folder: "empty", exit: 0 },
  "npx bass import glyue export.json --out my-project": {
    folder: "glyue",
    exit: 0,
    writes: "my-project/bass.config.yaml",
  },
  "npx bass validate --help": { folder: "empty", exit: 0 },
  "npx bass run --help": { folder: "empty", exit: 0 },
  "npx bass test --help": { folder: "empty", exit: 0 },
  "npx bass history --help": { folder: "empty", exit: 0 },
  "npx bass history list --help": { folder: "empty", exit: 0 },
  "npx bass history show --help": { folder: "empty", exit: 0 },
  "npx bass history rerun --help": { folder: "empty", exit: 0 },
  "npx bass history promote --help": { folder: "empty", exit: 0 },
  "npx bass serve --help": { folder: "empty", exit: 0 },
  "npx bass openapi --help": { folder: "empty", exit: 0 },
  "npx bass mockcore --help": { folder: "empty", exit: 0 },
  "npx bass validate --project my-project": { folder: "empty", before: [init], exit: 0 },
  "npx bass test --project my-project": { folder: "empty", before: [init], exit: 0 },
  "npx bass init my-project --template samples": {
    folder: "empty",
    exit: 0,
    writes: "my-project/integrations/customers.create.yaml",
  },
  "npx bass list": { folder: "project", exit: 0 },
  "npx bass list --json --project samples": { folder: "checkout", exit: 0 },
  [projectRun]: { folder: "project", exit: 0 },
  [projectRetrieve]: { folder: "project", exit: 0 },
  "npx bass run customers.create --input inputs/customers.create.json --record cassettes/create.yaml": {
    folder: "project",
    exit: 0,
    writes: "cassettes/create.yaml",
  },
  "npx bass test": { folder: "project", exit: 0 },
  "npx bass test tests/customers.create.test.yaml --update": { folder: "project", exit: 0 },
  "npx bass test --grep transfer --shard 1/2": { folder: "project", exit: 0 },
  "npx bass test --coverage --coverage-threshold 80": {
    folder: "project",
    exit: 0,
    writes: "coverage/lcov.info",
  },
  "npx bass test --project samples --coverage": {
    folder: "checkout",
    exit: 0,
    writes: "coverage/cobertura.xml",
  },
  "npx bass test --coverage --coverage-threshold 80 --reporter junit > bass-junit.xml": {
    folder: "project",
    exit: 0,
    writes: "coverage/lcov.info",
  },
  "npx bass test --coverage": { folder: "project", exit: 0, writes: "coverage/lcov.info" },
  // A fresh import has no cases yet.
  "npx bass completion --help": { folder: "empty", exit: 0 },
  "npx bass completion bash > ~/.local/share/bash-completion/completions/bass": {
    folder: "empty",
    exit: 0,
    instead: { command: "npx bass completion bash > bass.bash", why: home },
    writes: "bass.bash",
  },
  "npx bass completion fish > ~/.config/fish/completions/bass.fish": {
    folder: "empty",
    exit: 0,
    instead: { command: "npx bass completion fish > bass.fish", why: home },
    writes: "bass.fish",
  },
  "npx bass completion zsh >> ~/.zshrc": {
    folder: "empty",
    exit: 0,
    instead: { command: "npx bass completion zsh >> zshrc", why: home },
    writes: "zshrc",
  },
  "npx bass test --pass-with-no-tests": {
    folder: "glyue",
    before: ["npx bass import glyue export.json"],
    exit: 0,
  },
  "npx bass history --integration customers.create --status failure": {
    folder: "project",
    before: [projectRun],
    exit: 0,
  },
  "npx bass history show 01M80AN5Y62YTE3T5G3NSKQ4K3": { folder: "project", before: [projectRun], exit: 0 },
  "npx bass history list --limit 5 --json": { folder: "project", before: [projectRun], exit: 0 },
  "npx bass history show latest~1 --json": {
    folder: "project",
    before: [projectRun, projectRetrieve],
    exit: 0,
  },
  "npx bass history rerun latest": { folder: "project", before: [projectRetrieve], exit: 0 },
  "npx bass vault --help": { folder: "empty", exit: 0 },
  "npx bass vault list --help": { folder: "empty", exit: 0 },
  "npx bass vault get --help": { folder: "empty", exit: 0 },
  "npx bass vault set --help": { folder: "empty", exit: 0 },
  "npx bass vault delete --help": { folder: "empty", exit: 0 },
  "npx bass vault list": { folder: "project", exit: 0 },
  "npx bass vault list products": { folder: "project", exit: 0 },
  "npx bass vault get products savings": { folder: "project", exit: 0 },
  'npx bass vault set products savings \'{"product_code":"SAV","min_deposit":"50.00"}\'': {
    folder: "project",
    exit: 0,
  },
  "npx bass vault set products partner_key - --secret < partner-key.txt": {
    folder: "project",
    before: ["echo pk-from-a-file-0001 > partner-key.txt"],
    exit: 0,
  },
  "npx bass vault delete products savings": { folder: "project", exit: 0 },
  "npx bass history promote 01M80AN5Y62YTE3T5G3NSKQ4K3 --out tests/found.test.yaml": {
    folder: "project",
    before: [projectRun],
    exit: 0,
    writes: "tests/found.test.yaml",
  },
  "npx bass serve": {
    folder: "project",
    exit: 0,
    instead: { command: "npx bass serve --port 0", why: freePort },
    started: serveStarted,
  },
  "npx bass serve --watch --port 8080": {
    folder: "project",
    exit: 0,
    instead: { command: "npx bass serve --watch --port 0", why: freePort },
    started: serveStarted,
  },
  "npx bass openapi --out openapi.json": { folder: "project", exit: 0, writes: "openapi.json" },
  "npx bass mockcore --latency 200 --error-rate 0.1": {
    folder: "empty",
    exit: 0,
    instead: { command: "npx bass mockcore --latency 200 --error-rate 0.1 --port 0", why: freePort },
    started: mockcoreStarted,
  },

  // docs/cli.md: examples with their output
  "npx bass run nope --input inputs/grace.json": { folder: "tutorial", exit: 2 },
  "npx bass frobnicate": { folder: "empty", exit: 2 },
  "npx bass validate --format json": { folder: "tutorial-step-4", exit: 1 },
  [onboardRun]: { folder: "tutorial", exit: 0 },
  "npx bass history --limit 3": { folder: "tutorial", before: [onboardRun, onboardRun, onboardRun], exit: 0 },
  "npx bass mockcore --port 4011": { folder: "empty", exit: 0, started: mockcoreStarted },

  // docs/ci.md: the workflows' steps. A report step must pass on findings (exit 1), so it runs on a
  // project that has some.
  "npx bass validate --format github": { folder: "project", exit: 0 },
  "npx bass validate --format sarif > bass.sarif || [ $? -eq 1 ]": {
    folder: "tutorial-step-4",
    exit: 0,
    writes: "bass.sarif",
  },
  "npx bass test --reporter junit > bass-junit.xml": { folder: "project", exit: 0, writes: "bass-junit.xml" },
  "npx bass validate --format json > bass-validate.json || [ $? -eq 1 ]": {
    folder: "tutorial-step-4",
    exit: 0,
    writes: "bass-validate.json",
  },
  "npx bass validate --format junit > bass-validate-junit.xml || [ $? -eq 1 ]": {
    folder: "tutorial-step-4",
    exit: 0,
    writes: "bass-validate-junit.xml",
  },
};

/** Every example of one doc, in the order of its lines. */
function docExamples(file: string): DocExample[] {
  const markdown = readFileSync(join(repoRoot, file), "utf8");
  const located = [...consoleCommands(markdown), ...helpCommands(markdown), ...blockCommands(markdown)];
  return located
    .sort((a, b) => a.line - b.line)
    .map(({ line, ...example }) => ({ where: `${file}:${line}`, ...example }));
}

interface Located {
  line: number;
  command: string;
  output?: string;
}

/** The `$ npx bass …` commands of console blocks, on one line, with the output shown under them. */
function consoleCommands(markdown: string): Located[] {
  return consoleExamples(markdown)
    .filter((example) => example.command.includes("npx bass"))
    .map((example) => ({ ...example, command: example.command.replace(/\s*\\\n\s*/g, " ") }));
}

/** The `$ bass …` lines of the `Examples:` of a pasted --help text: the CLI's own, run through npx. */
function helpCommands(markdown: string): Located[] {
  return consoleExamples(markdown).flatMap((example) => {
    const first = example.line + example.command.split("\n").length;
    return joinContinued(example.output.split("\n"), first).flatMap(({ line, command }) => {
      const help = /^ {2}\$ (bass .*)$/.exec(command)?.[1];
      return help === undefined ? [] : [{ line, command: `npx ${help}` }];
    });
  });
}

const commandBlocks = new Set(["sh", "bash", "shell", "yaml", "yml"]);

/**
 * The commands of sh, bash and YAML blocks that run `npx bass`, with their `# comments` left out and
 * a YAML `run:` or list item's dash left off.
 */
function blockCommands(markdown: string): Located[] {
  return markdownBlocks(markdown).flatMap((block) => {
    if (block.kind !== "fence" || !commandBlocks.has(block.lang)) return [];
    const lines = block.lines.map((text) => text.replace(/(?:^|\s)#(?:\s.*)?$/, ""));
    return joinContinued(lines, block.line + 1)
      .map(({ line, command }) => ({ line, command: command.trim().replace(/^(?:- )?(?:run: )?/, "") }))
      .filter(({ command }) => command.includes("npx bass"));
  });
}

/** Lines with their `\` continuations joined by one space, each with the number of its first line. */
function joinContinued(lines: readonly string[], firstLine: number): Located[] {
  const joined: Located[] = [];
  let continued = false;
  lines.forEach((text, index) => {
    const last = joined.at(-1);
    if (continued && last) last.command = `${last.command.slice(0, -1).trimEnd()} ${text.trim()}`;
    else joined.push({ line: firstLine + index, command: text.trimEnd() });
    continued = text.trimEnd().endsWith("\\");
  });
  return joined;
}

/** A new folder laid out as `folder` says. */
function createFolder(folder: Folder): string {
  return withBassInstalled(createFolderFiles(folder));
}

function createFolderFiles(folder: Folder): string {
  switch (folder) {
    case "empty":
      return createTempDir();
    case "project":
      return copySamples(createTempDir());
    case "checkout": {
      const dir = createTempDir();
      copySamples(join(dir, "samples"));
      return dir;
    }
    case "tutorial":
      return createTempDir(tutorialFiles({ fixed: true }));
    case "tutorial-step-4":
      return createTempDir(tutorialFiles({ fixed: false }));
    case "glyue":
      return createTempDir({
        "export.json": readFileSync(join(repoRoot, "test", "fixtures", "glyue", "export.json"), "utf8"),
      });
  }
}

/** The files of docs/tutorial.md's project, as the tutorial has the reader write them. */
function tutorialFiles(options: { fixed: boolean }): Record<string, string> {
  const tutorial = readFileSync(join(repoRoot, "docs", "tutorial.md"), "utf8");
  const definition = fencedBlockAfter(tutorial, "Create `integrations/customers.onboard.yaml`");
  return {
    "bass.config.yaml": fencedBlockAfter(tutorial, "`bass.config.yaml` names the folder of your definitions"),
    // The two fixes of the tutorial's step 4.
    "integrations/customers.onboard.yaml": options.fixed
      ? definition.replace("servce_name:", "service_name:").replace("person.response", "core.response")
      : definition,
    "inputs/grace.json": fencedBlockAfter(tutorial, "Save this as `inputs/grace.json`"),
    "mocks/core-created.yaml": fencedBlockAfter(tutorial, "`mocks/core-created.yaml`:"),
  };
}

/** What a run of an example gave: its exit code, what to hold against the docs, and all it printed. */
interface Outcome {
  code: number;
  /** stdout then stderr; for a long-running command, up to its start line (what the docs show). */
  shown: string;
  printed: string;
}

/** Runs `command` to its end, or, when `started` is given, until it has started and is then stopped. */
async function runToEnd(command: string, cwd: string, started: RegExp | undefined): Promise<Outcome> {
  if (started === undefined) {
    const result = runExample(command, { cwd });
    const printed = result.stdout + result.stderr;
    return { code: result.code, shown: printed, printed };
  }
  const running = await startExample(command, { cwd, started });
  const result = await running.stop();
  return { code: result.code, shown: running.printed, printed: result.stdout + result.stderr };
}

/** Runs the commands that prepare an example, pairing the run ids they print with the example's. */
function runBefore(
  commands: readonly string[],
  cwd: string,
  example: string,
  ids: Map<string, string>,
): void {
  for (const command of commands) {
    const result = runExample(command, { cwd });
    expect(result.code, `${command}, run first, failed:\n${result.stdout}${result.stderr}`).toBe(0);
    pairRunIds(example, result.stdout, ids);
  }
}

const allExamples = docs.flatMap(docExamples);

describe("the examples of README.md and docs/", () => {
  it("stand in pages this test or a test of their own runs", () => {
    const runElsewhere = ["docs/tutorial.md", "docs/porting.md"];
    const pages = [
      "README.md",
      "bench/README.md",
      ...readdirSync(join(repoRoot, "docs")).map((name) => `docs/${name}`),
    ]
      .filter((page) => page.endsWith(".md"))
      .filter((page) => /^```(sh|console|bash|shell)\b/m.test(readFileSync(join(repoRoot, page), "utf8")));
    expect(pages.filter((page) => !docs.includes(page) && !runElsewhere.includes(page))).toEqual([]);
  });

  it("are each in the table of how they run", () => {
    const unknown = allExamples
      .filter((example) => !Object.hasOwn(examples, example.command))
      .map((example) => `${example.where}: ${example.command}`);
    expect(unknown, "add it to the table in test/docs/examples.test.ts").toEqual([]);
  });

  it("are all the table holds", () => {
    const written = new Set(allExamples.map((example) => example.command));
    const stale = Object.keys(examples).filter((command) => !written.has(command));
    expect(stale, "the docs no longer hold these: delete them from test/docs/examples.test.ts").toEqual([]);
  });

  it.each(allExamples.map((example) => [example.where, example.command, example.output] as const))(
    "%s runs as written: %s",
    async (where, command, output) => {
      const how = examples[command];
      if (how === undefined) throw new Error(`${where}: add it to the table in test/docs/examples.test.ts`);
      const cwd = createFolder(how.folder);
      const ids = new Map<string, string>();
      runBefore(how.before ?? [], cwd, how.instead?.command ?? command, ids);
      const run = withRunIds(how.instead?.command ?? command, ids);
      const outcome = await runToEnd(run, cwd, how.started);
      const ran = how.instead ? `${run} (not as written: ${how.instead.why})` : run;
      expect(outcome.code, `${where}: ${ran} exited ${outcome.code}:\n${outcome.printed}`).toBe(how.exit);
      if (how.writes !== undefined) {
        expect(existsSync(join(cwd, how.writes)), `${where}: ${ran} wrote no ${how.writes}`).toBe(true);
      }
      if (output !== undefined) {
        const documented = pairRunIds(output, outcome.shown, ids);
        expect(normalize(outcome.shown), `${where}: the output shown differs`).toBe(normalize(documented));
      }
    },
    30_000,
  );
});

describe("docs/ci.md's Code Quality script", () => {
  it("turns the findings of the tutorial's step 4 into the report the page shows", () => {
    const ci = readFileSync(join(repoRoot, "docs", "ci.md"), "utf8");
    const cwd = createTempDir({
      ...tutorialFiles({ fixed: false }),
      "ci/bass-codequality.mjs": fencedBlockAfter(
        ci,
        "in the repository, `ci/bass-codequality.mjs`, converts it:",
      ),
    });
    const steps = [
      "npx bass validate --format json > bass-validate.json || [ $? -eq 1 ]",
      "node ci/bass-codequality.mjs < bass-validate.json > gl-code-quality-report.json",
    ];
    for (const step of steps) {
      expect(ci, `docs/ci.md's GitLab job no longer runs ${step}`).toContain(`    - ${step}\n`);
      const result = runExample(step, { cwd });
      expect(result.code, `${step}:\n${result.stderr}`).toBe(0);
    }
    const report = JSON.parse(readFileSync(join(cwd, "gl-code-quality-report.json"), "utf8"));
    expect(report).toEqual(JSON.parse(fencedBlockAfter(ci, "with its two mistakes, it writes:")));
  });
});
