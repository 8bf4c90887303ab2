import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";

export const repoRoot = join(import.meta.dirname, "..", "..");
const bin = join(repoRoot, "bin", "bass.cjs");

/**
 * `dir` as the docs' reader has it: a folder whose project installed bass (`node_modules/bass`, this
 * checkout), so that the steps bass prints after `init` and `import` run it as the docs show.
 */
export function withBassInstalled(dir: string): string {
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(repoRoot, join(dir, "node_modules", "bass"), "dir");
  return dir;
}

export interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs one command of the docs as written, in `sh`, with `npx bass` standing for this checkout's
 * built CLI (npx itself would add a start of its own to every example and check nothing of bass).
 */
export function runExample(
  command: string,
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): ShellResult {
  const result = spawnSync("sh", ["-c", withBuiltCli(command)], {
    cwd: options.cwd,
    env: exampleEnv(options.cwd, options.env),
    encoding: "utf8",
    timeout: options.timeoutMs ?? 30_000,
  });
  if (result.error) throw result.error;
  return { code: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

function withBuiltCli(command: string): string {
  return command.replaceAll("npx bass", `"${process.execPath}" "${bin}"`);
}

// Only PATH from the test's own environment: a developer's CORE_URL or BASS_PROJECT must not reach bass.
function exampleEnv(cwd: string, env: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: cwd, NO_COLOR: "1", ...env };
}

/** A long-running example (serve, mockcore, --watch) that has printed its start line. */
export interface StartedExample {
  /** What it printed up to its start line: stdout, then stderr. */
  printed: string;
  /** Stops it with SIGINT, as Ctrl-C does, and resolves once it has exited. */
  stop(): Promise<ShellResult>;
}

export interface StartExampleOptions {
  cwd: string;
  env?: Record<string, string>;
  /** The line that says it has started, looked for on stdout and stderr. */
  started: RegExp;
  /** How long it may take to print that line, and to exit once stopped. */
  timeoutMs?: number;
}

/**
 * Starts a long-running example as `runExample` runs one, and resolves once it prints `started`; rejects
 * when it exits first, and kills it and rejects when it stays silent too long. The command must be one simple
 * command: it is `exec`ed, so that the signal reaches bass and bass's own exit code comes back.
 */
export function startExample(command: string, options: StartExampleOptions): Promise<StartedExample> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const child = spawn("sh", ["-c", `exec ${withBuiltCli(command)}`], {
    cwd: options.cwd,
    env: exampleEnv(options.cwd, options.env),
  });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<ShellResult>((resolve) => {
    child.on("close", (code, signal) => {
      resolve({ code: code ?? 128 + (signal ? constants.signals[signal] : 0), stdout, stderr });
    });
  });
  const stop = (): Promise<ShellResult> => {
    child.kill("SIGINT");
    return withDeadline(exited, timeoutMs, () => child.kill("SIGKILL"), `${command} did not exit on SIGINT`);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`${command} printed no ${options.started} within ${timeoutMs} ms:\n${stdout}${stderr}`),
      );
    }, timeoutMs);
    const look = () => {
      if (!options.started.test(stdout + stderr)) return;
      clearTimeout(timer);
      resolve({ printed: stdout + stderr, stop });
    };
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      look();
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      look();
    });
    // Once it has started, an exit is the caller's to see through stop().
    void exited.then((result) => {
      clearTimeout(timer);
      reject(
        new Error(`${command} exited (${result.code}) before it started:\n${result.stdout}${result.stderr}`),
      );
    });
  });
}

/** `promise`, or a rejection with `message` (after `onLate`) when it takes longer than `ms`. */
async function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  onLate: () => void,
  message: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate();
      reject(new Error(message));
    }, ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** One `$ command` of a console block, the output the docs show under it, and the doc's line. */
export interface ConsoleExample {
  line: number;
  command: string;
  output: string;
}

/**
 * The examples of a Markdown file's ```console blocks (also inside `>` quotes): each `$ ` line, joined
 * with its `\` continuations, and the lines under it up to the next `$ ` or the block's end.
 */
export function consoleExamples(markdown: string): ConsoleExample[] {
  const examples: ConsoleExample[] = [];
  let inBlock = false;
  let current: ConsoleExample | undefined;
  let continued = false;
  markdown.split("\n").forEach((raw, index) => {
    const text = raw.replace(/^> ?/, "");
    if (/^```/.test(text)) {
      inBlock = !inBlock && text.startsWith("```console");
      if (!inBlock) current = undefined;
      return;
    }
    if (!inBlock) return;
    if (continued && current) {
      current.command += `\n${text}`;
      continued = text.endsWith("\\");
    } else if (text.startsWith("$ ")) {
      current = { line: index + 1, command: text.slice(2), output: "" };
      examples.push(current);
      continued = text.endsWith("\\");
    } else if (current) current.output += `${text}\n`;
  });
  return examples;
}

const runId = /\b[0-9A-HJKMNP-TV-Z]{26}\b/g;

/**
 * What an example printed, with what differs from run to run made alike: durations, times, dates,
 * JUnit times, the space that aligns columns. Run ids are left to `pairRunIds`.
 */
export function normalize(text: string): string {
  return text
    .replace(/\b\d+ ms\b/g, "<n> ms")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>")
    .replace(/^Date: .*$/gm, "Date: <date>")
    .replace(/ time="[\d.]+"/g, ' time="<s>"')
    .replace(/ {2,}/g, "  ")
    .trimEnd()
    .concat("\n");
}

/**
 * Pairs the run ids the docs show with those a run printed, in order of appearance, adding to `ids`
 * (doc id → real id); returns the docs' text with the ids it knows put in.
 */
export function pairRunIds(documented: string, actual: string, ids: Map<string, string>): string {
  const real = actual.match(runId) ?? [];
  (documented.match(runId) ?? []).forEach((id, index) => {
    const found = real[index];
    if (!ids.has(id) && found !== undefined) ids.set(id, found);
  });
  return withRunIds(documented, ids);
}

/** `text` with every run id made alike, where which run is which does not matter. */
export function withoutRunIds(text: string): string {
  return text.replace(runId, "<id>");
}

/** `text` with each documented run id it holds replaced by the real one, where known. */
export function withRunIds(text: string, ids: ReadonlyMap<string, string>): string {
  return text.replace(runId, (id) => ids.get(id) ?? id);
}

/**
 * The text of the first fenced code block after the first line that holds `marker`: a file a doc asks
 * the reader to save ("Save this as `inputs/grace.json`:"). Throws when there is none, naming `marker`.
 */
export function fencedBlockAfter(markdown: string, marker: string): string {
  const lines = markdown.split("\n");
  const from = lines.findIndex((line) => line.includes(marker));
  const open = lines.findIndex((line, index) => index > from && /^```/.test(line));
  const close = lines.findIndex((line, index) => index > open && /^```/.test(line));
  if (from < 0 || open < 0 || close < 0) throw new Error(`no code block after a line holding ${marker}`);
  return `${lines.slice(open + 1, close).join("\n")}\n`;
}
