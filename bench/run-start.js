import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { copySamples, pairRatios, runCommand, startupEnvironments, timeCommands } from "./lib.js";

const bass = fileURLToPath(new URL("../bin/bass.cjs", import.meta.url));
const bundleMain = fileURLToPath(new URL("../dist/cli-bundle/main.cjs", import.meta.url));

/**
 * `bass run` cold start: one run of the sample `customers.create` with its mock core answer, as a new
 * process each time (open the project, from `.bass/cache` after the warm-up round, run, write the history,
 * print JSON), and once more with the cache removed before each run (the first run after an edit), against a
 * bare `node -e 0`, taking turns, in each of `startupEnvironments()` (the goals are judged where it says). The samples are copied to a temp dir first (without any `.bass` of
 * theirs), so the history the runs write goes there and not into the repository.
 */
export async function measureRunStart({ runs = 15 } = {}) {
  const root = mkdtempSync(join(tmpdir(), "bass-bench-run-"));
  try {
    const project = copySamples(root);
    const run = [
      process.execPath,
      bass,
      "run",
      "customers.create",
      "--project",
      project,
      "--input",
      join(project, "inputs", "customers.create.json"),
      "--mock",
      join(project, "mocks", "customers.create.yaml"),
      "--json",
    ];
    assertRunSucceeds(run);
    // The same run with no --mock: over real HTTP to the mock core it starts in-process (base_url mockcore:).
    const live = run.filter((_, index) => index < run.indexOf("--mock") || index > run.indexOf("--mock") + 1);
    assertRunSucceeds(live, /^P0000\d\d$/);

    // The live run as bin/bass.cjs starts it, but for V8's flag: undici's WebAssembly parser then gets
    // optimized code as well as baseline code, as in any other node process.
    const unflagged = [
      process.execPath,
      "-e",
      `require(${JSON.stringify(bundleMain)}).main(process.argv.slice(1)).then((code) => { process.exitCode = code; });`,
      ...live.slice(2),
    ];
    assertRunSucceeds(unflagged, /^P0000\d\d$/);
    const cache = join(project, ".bass", "cache");
    const uncached = ["bash", "-c", 'rm -rf "$0" && exec "$@"', cache, ...run];

    return startupEnvironments().flatMap(({ label, env, node, judged }, index) => {
      // The rows beside the goals once, on this machine's Node.
      const first = index === 0;
      const on = (argv) => [node, ...argv.slice(1)];
      const [bare, bassRun, liveRun, unflaggedRun, uncachedRun] = timeCommands(
        [[node, "-e", "0"], on(run), on(live), ...(first ? [unflagged, uncached] : [])],
        { runs, cwd: root, env },
      );
      const baseline = { ms: bare.median, label: "node -e 0 (CPU)" };
      const mocked = pairRatios(bassRun, bare);
      const embedded = pairRatios(liveRun, bare);
      const spread = ({ min, max }) => `spread ${min.toFixed(2)}–${max.toFixed(2)}×`;
      const goal = (max) => (judged ? { goal: { text: `at most ${max}×`, max, of: "ratio" } } : {});
      const rows = [
        {
          name: `bass run --mock${label}`,
          value: bassRun.median,
          baseline,
          ratio: mocked,
          ...goal(2),
          note: `bass run customers.create --mock … --json${label} (samples, history in a temp dir) takes ${mocked.median.toFixed(2)}× the CPU time (user + sys) of a bare node start (median of ${runs} pairs after a warm-up round, ${spread(mocked)})`,
        },
        {
          name: `bass run, embedded core${label}`,
          value: liveRun.median,
          baseline,
          ratio: embedded,
          ...goal(3),
          note: `bass run customers.create against the embedded mock core${label} (started in-process, real HTTP, data file written) takes ${embedded.median.toFixed(2)}× the CPU time of a bare node start (${spread(embedded)})`,
        },
      ];
      if (!first) return rows;
      const flagged = pairRatios(liveRun, unflaggedRun);
      const edited = pairRatios(uncachedRun, bare);
      return [
        ...rows,
        {
          name: "bass run --mock, no cache",
          value: uncachedRun.median,
          baseline,
          ratio: edited,
          note: `the same run with .bass/cache removed first (the first run after an edit: the project parsed, linted and compiled) takes ${edited.median.toFixed(2)}× the CPU time of a bare node start (${spread(edited)})`,
        },
        {
          name: "live run, baseline wasm only",
          value: liveRun.median,
          baseline: { ms: unflaggedRun.median, label: "without --liftoff-only" },
          ratio: flagged,
          note: `the live run as bin/bass.cjs starts it (V8's --liftoff-only for a one-shot run) takes ${flagged.median.toFixed(2)}× the CPU time of the same run without the flag (${spread(flagged)}; below 1 is a gain)`,
        },
      ];
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Fails the bench unless the run exits 0 with status success and a customer id the core gave. */
function assertRunSucceeds(argv, customerId = /^P000042$/) {
  const result = JSON.parse(runCommand(argv));
  if (result.status !== "success" || !customerId.test(result.output?.payload?.customer_id ?? "")) {
    throw new Error(
      `bass run did not succeed: ${argv.join(" ")}\n${JSON.stringify(result, null, 2).slice(0, 4000)}`,
    );
  }
}
