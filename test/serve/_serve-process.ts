import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { onTestFinished } from "vitest";

const bin = join(import.meta.dirname, "../../bin/bass.cjs");
const listening = /bass serve listening on (http:\/\/127\.0\.0\.1:\d+)/;

export interface ServeProcess {
  /** Where it listens, from its "listening on" line. */
  url: string;
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** Its exit code, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals | null>;
}

/**
 * `bass serve --project DIR --port 0` of the built CLI (dist/, as `npm test` builds it) in a child process,
 * once it prints where it listens; killed with SIGKILL when the test ends if it still runs.
 */
export async function spawnServe(projectDir: string, env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const { CORE_URL: _, ...inherited } = process.env;
  const child = spawn(process.execPath, [bin, "serve", "--project", projectDir, "--port", "0"], {
    cwd: projectDir,
    env: { ...inherited, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  child.stdout.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal)),
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`bass serve did not listen within 15 s:\n${printed}`)),
      15_000,
    );
    const look = () => {
      const found = listening.exec(printed)?.[1];
      if (found === undefined) return;
      clearTimeout(timer);
      child.stdout.off("data", look);
      resolve(found);
    };
    child.stdout.on("data", look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`bass serve exited (${code}) before it listened:\n${printed}`));
    });
  });
  return { url, child, output: () => printed, exited };
}
