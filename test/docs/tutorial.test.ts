import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir } from "../_helpers.js";
import { normalize, pairRunIds, repoRoot, runExample, withoutRunIds, withRunIds } from "./_examples.js";
import { examplesOf, markdownBlocks } from "./_markdown.js";

const tutorialFile = join(repoRoot, "docs", "tutorial.md");
const blocks = markdownBlocks(readFileSync(tutorialFile, "utf8"));

/**
 * Each console example of the tutorial in order, with the exit code the story expects of it, and
 * `"rows in any order"` where its lines come from runs that ran at once. The test fails when the
 * tutorial gains, loses or reorders one: update this list with it.
 */
const expectedCodes: [command: string, code: number, rows?: "rows in any order"][] = [
  ["npx bass --version", 0],
  ["npx bass validate", 0], // the warning of a project without definitions
  ["npx bass validate", 1], // the bare `mockcore:` of the quote
  ["npx bass validate", 1], // the definition's two mistakes
  ["npx bass run customers.onboard --input inputs/grace.json", 2],
  ["npx bass validate", 0],
  ["npx bass run customers.onboard --input inputs/grace.json --mock mocks/core-created.yaml", 0],
  [
    "npx bass run customers.onboard --input inputs/grace.json --mock mocks/core-created.yaml --json | jq '.history.items[1].request.payload.body'",
    0,
  ],
  ["npx bass run customers.onboard --input inputs/grace.json", 0],
  [
    `echo '{"first_name":"Grace","last_name":"Hopper","email":"grace@example.com","date_of_birth":"2999-01-01","tax_id":"123-45-6789"}' | npx bass run customers.onboard --input -`,
    1,
  ],
  [`echo '{"first_name":"Grace","email":"grace-at-example"}' | npx bass run customers.onboard --input -`, 1],
  ["npx bass test", 1],
  ["npx bass test", 0],
  ["npx bass test --reporter junit", 1],
  ["npx bass test --reporter junit", 0],
  ["npx bass validate --format github", 1],
  // The two cases of each `bass test` run at once: which of them started first varies. Four rows are
  // the last two suites whole, whichever case of each came first.
  ["npx bass history --limit 4", 0, "rows in any order"],
  ["npx bass history show 01M80DM4708KQ2AWK6WQ5S3HSC", 0],
  ["npx bass history promote 01M80DM4708KQ2AWK6WQ5S3HSC", 0],
  ["npx bass history promote 01M80DM4708KQ2AWK6WQ5S3HSC --out tests/customers.onboard.test.yaml", 0],
  ["npx bass test", 0],
  ["npx bass serve", 0], // runs in the background until the log block
  [
    "curl -s -i -X POST http://127.0.0.1:3000/api/customers -H 'Content-Type: application/json' -d @inputs/grace.json",
    0,
  ],
  [
    `curl -s -X POST http://127.0.0.1:3000/api/customers -H 'Content-Type: application/json' -d '{"first_name":"Grace","email":"nope"}'`,
    0,
  ],
  ["curl -s -i http://127.0.0.1:3000/api/customers", 0],
  ["curl -s 'http://127.0.0.1:3000/_bass/runs?limit=1' | jq '.[0] | {id, integration, status, trigger}'", 0],
];

const definition = "integrations/customers.onboard.yaml";
const testFile = "tests/customers.onboard.test.yaml";
const projectFile = "bass.config.yaml";

/** What the reader does to their files where the tutorial's prose says so, keyed by words of that prose. */
interface Edit {
  when: string;
  apply(walk: Walk, prose: string): void;
}

const edits: Edit[] = [
  {
    when: '**Quote `"mockcore:"`.**',
    apply: (walk) =>
      walk.write(projectFile, walk.read(projectFile).replace(/base_url: .*/, "base_url: mockcore:")),
  },
  { when: "Later you will want", apply: (walk) => walk.restore(projectFile) },
  {
    // "line 33 becomes `…`, line 53 `…`": each named line of the definition replaced as the prose shows.
    when: "Fix both:",
    apply: (walk, prose) => {
      const lines = walk.read(definition).split("\n");
      for (const [, number, text] of prose.matchAll(/line (\d+)(?: becomes)?\s+`([^`]+)`/g))
        lines[Number(number) - 1] = text as string;
      walk.write(definition, lines.join("\n"));
    },
  },
  { when: "so fix the test", apply: (walk) => walk.write(testFile, fixedTest(walk.read(testFile))) },
  { when: "from the run with the mistake still in it", apply: (walk) => walk.restore(testFile) },
  { when: "and once fixed:", apply: (walk) => walk.write(testFile, fixedTest(walk.read(testFile))) },
  { when: "for the definition of step 3 with its two mistakes", apply: (walk) => walk.restore(definition) },
  {
    when: "On the fixed project it prints nothing and exits with 0.",
    apply: (walk) => {
      walk.restore(definition, 1);
      expect(walk.run("npx bass validate --format github")).toEqual({ code: 0, stdout: "", stderr: "" });
    },
  },
];

/** The test case of step 7 with its mistake (`status: 200`) fixed. */
function fixedTest(text: string): string {
  expect(text).toContain("output: { status: 200,");
  return text.replace("output: { status: 200,", "output: { status: 201,");
}

/** The reader's project folder as the tutorial goes, and each version of the files it wrote. */
class Walk {
  readonly ids = new Map<string, string>();
  serve: Serve | undefined;
  examples = 0;
  private writeTo: string | undefined;
  private readonly versions = new Map<string, string[]>();

  constructor(readonly dir: string) {}

  read(path: string): string {
    return readFileSync(join(this.dir, path), "utf8");
  }

  write(path: string, text: string): void {
    mkdirSync(dirname(join(this.dir, path)), { recursive: true });
    writeFileSync(join(this.dir, path), text);
    this.versions.set(path, [...(this.versions.get(path) ?? []), text]);
  }

  /** Writes back a version of the file: the first is the tutorial's block, the second its first fix. */
  restore(path: string, version = 0): void {
    const text = this.versions.get(path)?.[version];
    if (text === undefined) throw new Error(`the tutorial has not written version ${version} of ${path}`);
    writeFileSync(join(this.dir, path), text);
  }

  run(command: string) {
    return runExample(withRunIds(command, this.ids), { cwd: this.dir });
  }

  /** The file the prose names is the one its next block shows; an edit it asks for is made. */
  prose(text: string): void {
    this.writeTo = /`([\w./-]+\.(?:ya?ml|json))`/.exec(text)?.[1] ?? this.writeTo;
    for (const edit of edits) if (text.includes(edit.when)) edit.apply(this, text);
  }

  file(block: { line: number; lines: readonly string[] }): void {
    if (this.writeTo === undefined)
      throw new Error(`docs/tutorial.md:${block.line}: which file is this block?`);
    this.write(this.writeTo, `${block.lines.join("\n")}\n`);
    this.writeTo = undefined;
  }

  async console(block: { line: number; lines: readonly string[] }): Promise<void> {
    const examples = examplesOf(block);
    if (examples.length === 0 && this.serve) {
      // The first terminal's log, once serve has written the lines of the requests above.
      const log = `${block.lines.join("\n")}\n`;
      await this.serve.lines(log.split("\n").length - 1);
      this.expectOutput(block.line, this.serve.output(), log);
      await this.serve.stop();
      // "Ctrl-C stops it …, and it says `bass serve stopped`."
      expect(this.serve.output()).toMatch(/\nbass serve stopped\n$/);
      this.serve = undefined;
    }
    for (const shown of examples) {
      const [, code, rows] = expectedCodes[this.examples++] ?? [];
      if (shown.command === "npx bass serve") {
        this.serve = await startServe(this.dir);
        this.expectOutput(shown.line, this.serve.output(), shown.output);
        continue;
      }
      const result = this.run(this.onServePort(shown.command));
      expect
        .soft(result.code, `docs/tutorial.md:${shown.line}: ${shown.command}\n${result.stderr}`)
        .toBe(code);
      if (rows) expectRows(shown.line, result.stdout + result.stderr, shown.output);
      else this.expectOutput(shown.line, result.stdout + result.stderr, shown.output);
    }
  }

  private expectOutput(line: number, actual: string, shown: string): void {
    const expected = this.onServePort(pairRunIds(shown, actual, this.ids));
    expect
      .soft(normalizeTutorial(actual), `docs/tutorial.md:${line} shows another output`)
      .toBe(normalizeTutorial(expected));
  }

  /** The tutorial's serve address, moved to the port serve took here. */
  private onServePort(text: string): string {
    return this.serve ? text.replaceAll("127.0.0.1:3000", `127.0.0.1:${this.serve.port}`) : text;
  }
}

describe("docs/tutorial.md", () => {
  it("keeps its list of examples here in step with the tutorial", () => {
    const commands = blocks.flatMap((block) =>
      block.kind === "fence" && block.lang === "console"
        ? examplesOf(block).map((example) => example.command)
        : [],
    );
    expect(commands, "update expectedCodes in test/docs/tutorial.test.ts").toEqual(
      expectedCodes.map(([command]) => command),
    );
    for (const edit of edits)
      expect(
        blocks.some((block) => block.kind === "prose" && block.text.includes(edit.when)),
        `the tutorial no longer says ${JSON.stringify(edit.when)}: update edits in test/docs/tutorial.test.ts`,
      ).toBe(true);
  });

  it("runs as written: every command, with the output it shows", { timeout: 120_000 }, async () => {
    const root = createTempDir();
    const walk = new Walk(join(root, "acme-bank"));
    try {
      for (const block of blocks) await walkThrough(walk, root, block);
    } finally {
      await walk.serve?.stop();
    }
    expect(walk.examples).toBe(expectedCodes.length);
  });
});

/** One block of the tutorial as a reader takes it: reads the prose, runs the commands, writes the files. */
async function walkThrough(walk: Walk, root: string, block: (typeof blocks)[number]): Promise<void> {
  if (block.kind === "prose") walk.prose(block.text);
  else if (block.lang === "sh") install(root, walk.dir, block.lines);
  else if (block.lang === "yaml" || block.lang === "json") walk.file(block);
  else if (block.lang === "console") await walk.console(block);
}

/**
 * Step 1 as written, in a folder that holds the project and `bass` (this checkout) side by side. Its
 * first line, `npm ci` in the checkout, is what `.ci/run` does before the suite runs.
 */
function install(root: string, project: string, lines: readonly string[]): void {
  expect(lines[0]).toBe("(cd bass && npm ci)");
  symlinkSync(repoRoot, join(root, "bass"));
  // npm would run the checkout's `prepare` (a build) on the link: this suite runs on that build.
  const result = runExample(lines.slice(1).join(" && "), {
    cwd: root,
    env: { npm_config_ignore_scripts: "true" },
    timeoutMs: 60_000,
  });
  expect(result.code, result.stderr).toBe(0);
  expect(readFileSync(join(project, "package.json"), "utf8")).toMatch(/"bass": "file:/);
  expect(existsSync(join(project, "node_modules", ".bin", "bass"))).toBe(true);
}

/** Output whose lines may come in another order: compared as sorted lines, run ids aside. */
function expectRows(line: number, actual: string, shown: string): void {
  const rows = (text: string) => normalizeTutorial(withoutRunIds(text)).split("\n").sort();
  expect.soft(rows(actual), `docs/tutorial.md:${line} shows another output`).toEqual(rows(shown));
}

/** The tutorial's own variables on top of `normalize`: the date in a promoted case's name. */
function normalizeTutorial(text: string): string {
  return normalize(text.replaceAll("\r\n", "\n").replace(/ of \d{4}-\d{2}-\d{2}\b/g, " of <date>"));
}

interface Serve {
  port: number;
  output(): string;
  /** Resolves once serve has printed `count` lines, or after two seconds. */
  lines(count: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `npx bass serve` in the background, as the reader leaves it in a terminal of its own; on a free port
 * rather than 3000, which another program of a shared machine may hold.
 */
async function startServe(cwd: string): Promise<Serve> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(repoRoot, "bin", "bass.cjs"), "serve", "--port", "0"],
    {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: cwd, NO_COLOR: "1" },
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const check = setInterval(() => {
      const found = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      // The routes follow the first line; the admin line ends them.
      if (found && /\/_bass\//.test(output)) {
        clearInterval(check);
        resolve(Number(found[1]));
      }
    }, 20);
    void exited.then(() => {
      clearInterval(check);
      reject(new Error(`bass serve ended before it listened:\n${output}`));
    });
  });
  return {
    port,
    output: () => output,
    async lines(count) {
      for (let waited = 0; waited < 2000 && output.split("\n").length - 1 < count; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
    },
    async stop() {
      child.kill("SIGINT");
      await exited;
    },
  };
}
