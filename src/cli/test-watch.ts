import { dirname } from "node:path";
import { locateProjectFile } from "../definition/files.js";
import { isBassError } from "../errors.js";
import type { Output } from "./output.js";
import { waitForStopSignal } from "./stop-signal.js";
import { runTestCommand, type TestCommandOptions } from "./test.js";
import { watchTree } from "./watch-tree.js";

export interface WatchTestsOptions extends TestCommandOptions {
  /** Resolves when watching should end (tests); without it, SIGINT or SIGTERM ends it. */
  stopped?: Promise<unknown> | undefined;
}

/** How long a burst of saves settles before the suite runs again. */
const settleMs = 150;

/**
 * `bass test --watch`: runs the suite, then again after every change to the project's YAML or JSON files,
 * until Ctrl-C, as Jest and Vitest watch. A run that cannot start (a broken project file) says why and
 * waits for the next change. Returns the last run's exit code.
 */
export async function watchTests(
  paths: readonly string[],
  options: WatchTestsOptions,
  output: Output,
): Promise<number> {
  const signal = options.stopped ? undefined : waitForStopSignal();
  const stopped = options.stopped ?? signal?.received;
  const root = dirname(locateProjectFile({ cwd: options.cwd, projectDir: options.project }));
  let code = 0;
  let running: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const runOnce = async () => {
    try {
      code = await runTestCommand(paths, options, output);
    } catch (error) {
      // Whatever stops one run is said, and the next change runs the suite again.
      const message = isBassError(error)
        ? error.message
        : `unexpected error: ${(error as Error).stack ?? error}`;
      output.stderr(`bass: ${message}\n`);
      code = 2;
    }
    output.stderr(output.paint.dim("watching for changes (Ctrl-C to stop)\n"));
  };
  const watcher = watchTree(root, (file) => {
    if (!/\.(ya?ml|json|[cm]?js)$/.test(file)) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(runOnce);
    }, settleMs);
  });
  try {
    running = runOnce();
    await stopped;
    clearTimeout(timer);
    await running;
  } finally {
    watcher.close();
    signal?.cancel();
  }
  return code;
}
