import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { commandPairRow, copySamples, timeCommands } from "./lib.js";

const bass = fileURLToPath(new URL("../bin/bass.cjs", import.meta.url));

/**
 * What definition coverage costs: `bass test` of the samples' suite (59 cases, in worker threads, against
 * mocks and the embedded mock core) with `--coverage` against the same command without it, CPU of the
 * whole process (all threads), taking turns. The samples are copied to a temp dir first, without any `.bass`.
 */
export async function measureCoverage({ runs = 7 } = {}) {
  const root = mkdtempSync(join(tmpdir(), "bass-bench-coverage-"));
  try {
    const project = copySamples(root);
    const test = [process.execPath, bass, "test", "--project", project];
    const [plain, covered] = timeCommands([test, [...test, "--coverage"]], { runs, cwd: root });
    return [
      commandPairRow({
        name: "bass test --coverage",
        measured: covered,
        baseline: plain,
        label: "bass test without it (CPU)",
        goal: { text: "at most 1.2×", max: 1.2, of: "ratio" },
        runs,
        says: (ratio, figures) =>
          `bass test of the samples' suite (59 cases) with --coverage takes ${ratio}× the CPU of the same command without it (${figures})`,
      }),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
