import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pairRatios, runCommand, timeCommands } from "./lib.js";
import { createBenchProject } from "./project.js";

const bass = fileURLToPath(new URL("../bin/bass.cjs", import.meta.url));
const parseFiles = fileURLToPath(new URL("./parse-files.js", import.meta.url));
const DEFINITIONS = 1000;

/**
 * Validate throughput: `bass validate --format json` over a project of 1000 definitions and over one
 * of a single definition, end to end; their difference over 999 is the cost of one definition, with
 * node's start-up and the fixed work taken out. The baseline is a plain script that reads the same files
 * and parses them with their source positions (`YAML.parseDocument`), in a fresh process of its own: the
 * least a linter that places its findings must do. Times are CPU times (user + sys), taking turns.
 */
export async function measureValidate({ runs = 5 } = {}) {
  const root = mkdtempSync(join(tmpdir(), "bass-bench-"));
  try {
    const many = join(root, "many");
    const one = join(root, "one");
    const bytes = createBenchProject(many, DEFINITIONS);
    createBenchProject(one, 1);
    const validate = (dir) => [process.execPath, bass, "validate", "--project", dir, "--format", "json"];
    const parse = (dir, ...mode) => [process.execPath, parseFiles, dir, ...mode];
    // These first runs check the projects and warm the disk cache, so the timed rounds need no warm-up.
    assertValidatesClean(validate(many), DEFINITIONS);
    assertValidatesClean(validate(one), 1);

    const [validateMany, validateOne, parseMany, parseOne, parsePlainEnv] = timeCommands(
      [validate(many), validate(one), parse(many), parse(one), parse(many, "--plain-env")],
      { runs, warmup: false },
    );
    const perDefinition = (validateMany.median - validateOne.median) / (DEFINITIONS - 1);
    const parsePerDefinition = (parseMany.median - parseOne.median) / (DEFINITIONS - 1);
    const bareParse = "read + YAML.parseDocument";
    const ratio = pairRatios(validateMany, parseMany);
    const swap = pairRatios(parsePlainEnv, parseMany);
    return [
      {
        name: `validate, ${DEFINITIONS} definitions`,
        value: validateMany.median,
        baseline: { ms: parseMany.median, label: bareParse },
        ratio,
        goal: { text: "at most 1.2×", max: 1.2, of: "ratio" },
        note: `validate of ${DEFINITIONS} definitions takes ${ratio.median.toFixed(2)}× the CPU time of a fresh process that only parses them with positions (median of ${runs} pairs, spread ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}×)`,
      },
      {
        name: "validate, 1 definition",
        value: validateOne.median,
        baseline: { ms: parseOne.median, label: bareParse },
      },
      {
        name: "parse, process.env swapped",
        value: parsePlainEnv.median,
        baseline: { ms: parseMany.median, label: bareParse },
        ratio: swap,
        note: `parsing ${DEFINITIONS} definitions with process.env swapped for a plain copy (what parseYamlSource does) takes ${swap.median.toFixed(2)}× the CPU time of parsing them with the real one (spread ${swap.min.toFixed(2)}–${swap.max.toFixed(2)}×)`,
      },
      {
        name: "validate, per definition",
        value: perDefinition,
        baseline: { ms: parsePerDefinition, label: bareParse },
        goal: { text: "under 1 ms per definition", max: 1, of: "value" },
        note: `validate costs ${(perDefinition / parsePerDefinition).toFixed(1)}× a bare parse per definition (files of ${(bytes / DEFINITIONS / 1024).toFixed(1)} KB on average; medians of ${runs} runs; per definition = (t${DEFINITIONS} - t1) / ${DEFINITIONS - 1})`,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Fails the bench unless validate exits 0 with no finding at all over the project's files. */
function assertValidatesClean(argv, definitions) {
  const report = JSON.parse(runCommand(argv));
  const { files, errors, warnings } = report.summary;
  if (files !== definitions + 1 || errors !== 0 || warnings !== 0) {
    const shown = JSON.stringify(report.findings.slice(0, 5), null, 2);
    throw new Error(
      `the bench project does not validate clean (${files} files, ${errors} errors, ${warnings} warnings): ${argv.join(" ")}\n${shown}`,
    );
  }
}
