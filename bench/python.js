import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { median, pairRatios, timeCommands } from "./lib.js";

const dist = new URL("../dist/", import.meta.url);
const runtimeModule = new URL("python/runtime.js", dist).href;

/** The cell both languages run: one field of the input, doubled. */
const CELLS = { python: "input.payload.n * 2", javascript: "input.payload.n * 2" };

/**
 * Python cells:
 * - loading the runtime, once per process or worker thread: a process that loads it from the user's memory
 *   snapshot (made before the first timed load) against one that loads Pyodide itself (its own start, no snapshot), wall time, taking turns;
 * - one simple cell after the load: the same expression cell in a Python and a JavaScript definition, each
 *   compiled once and run many times through the engine's cell (namespace in, plain value out).
 */
export async function measurePython({ loads = 5, cellRuns = 20_000, rounds = 5 } = {}) {
  const load = (snapshot) =>
    snapshot
      ? `const m = await import(${JSON.stringify(runtimeModule)}); await m.loadPython();`
      : "const { loadPyodide } = await import('pyodide'); await loadPyodide();";
  const command = (snapshot) => [process.execPath, "--input-type=module", "-e", load(snapshot)];
  // The user's snapshot is made on first use: once, before any load is timed.
  execFileSync(command(true)[0], command(true).slice(1), { stdio: "ignore" });
  const [fromSnapshot, plain] = timeCommands([command(true), command(false)], {
    runs: loads,
    clock: "wall",
    cwd: new URL("..", import.meta.url).pathname,
  });
  const loadRatio = pairRatios(fromSnapshot, plain);

  const run = measurePythonRun(loads);
  const cells = await compileCells();
  const perCell = (cell) => {
    const started = performance.now();
    for (let run = 0; run < cellRuns; run++) cell();
    return ((performance.now() - started) * 1000) / cellRuns;
  };
  for (const cell of Object.values(cells)) perCell(cell);
  const python = [];
  const javascript = [];
  for (let round = 0; round < rounds; round++) {
    python.push(perCell(cells.python));
    javascript.push(perCell(cells.javascript));
  }
  return [
    {
      name: "Python runtime load, once",
      value: fromSnapshot.median,
      baseline: { ms: plain.median, label: "Pyodide's own load" },
      ratio: loadRatio,
      goal: { text: "under 1.5 s", max: 1500, of: "value" },
      note: `a process loads the Python runtime from the user's memory snapshot in ${fromSnapshot.median.toFixed(0)} ms of wall time, against ${plain.median.toFixed(0)} ms for Pyodide's own load (${loadRatio.median.toFixed(2)}×, spread ${loadRatio.min.toFixed(2)}–${loadRatio.max.toFixed(2)}×, ${loads} pairs, whole processes); serve's worker threads each pay it once`,
    },
    run,
    {
      name: "Python cell, after the load",
      value: median(python) / 1000,
      baseline: { ms: median(javascript) / 1000, label: "the same JavaScript cell" },
      goal: { text: "under 100 µs", max: 0.1, of: "value" },
      note: `a one-line Python expression cell (${CELLS.python}) runs in ${median(python).toFixed(1)} µs through the engine's cell, namespace in and plain value out, against ${median(javascript).toFixed(2)} µs for the same JavaScript cell (${cellRuns} runs a round, medians of ${rounds} rounds, alternating)`,
    },
  ];
}

/** The two cells, compiled by the engine as a project's definitions are, each with a namespace to run in. */
async function compileCells() {
  const { loadPython } = await import(runtimeModule);
  await loadPython();
  const { openProject } = await import(new URL("project/open.js", dist));
  const { createNamespace } = await import(new URL("engine/namespace.js", dist));
  const root = mkdtempSync(join(tmpdir(), "bass-bench-python-"));
  try {
    mkdirSync(join(root, "integrations"));
    writeFileSync(join(root, "bass.config.yaml"), "integrations: integrations\nsystems: {}\n");
    for (const [language, code] of Object.entries(CELLS))
      writeFileSync(
        join(root, "integrations", `${language}.yaml`),
        `name: ${language}\nlanguage: ${language}\nbefore_hook: ${JSON.stringify(code)}\n`,
      );
    const project = await openProject({ cwd: root, env: {}, projectDir: root });
    if (project.issues.length)
      throw new Error(`the Python bench project does not validate: ${JSON.stringify(project.issues)}`);
    const made = {};
    for (const definition of project.definitions) {
      const integration = project.compile(definition);
      // A run's namespace, of a stand-in for the run: the cell reads its input only.
      const run = { id: "bench", integration };
      const namespace = createNamespace(
        run,
        { payload: { n: 21 } },
        { status: 200, headers: {}, payload: null },
      );
      const cell = integration.hooks.before_hook;
      made[definition.value.language] = () => {
        if (cell.run(namespace, performance.now() + 1000) !== 42) throw new Error("the cell did not give 42");
      };
    }
    return made;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const bin = new URL("../bin/bass.cjs", import.meta.url).pathname;

/**
 * `bass run` of a Python integration against its floor, in one run: a bare load of the Python runtime from
 * bass's own snapshot, plus `bass run` of the same integration in JavaScript, less the one Node start the
 * two share. CPU of each whole process, pair by pair.
 */
function measurePythonRun(runs) {
  const root = mkdtempSync(join(tmpdir(), "bass-bench-python-run-"));
  try {
    mkdirSync(join(root, "integrations"));
    writeFileSync(join(root, "bass.config.yaml"), "systems:\n  echo:\n    adapter: echo\n");
    for (const language of ["python", "javascript"])
      writeFileSync(
        join(root, "integrations", `${language}.yaml`),
        [
          `name: ${language}`,
          `language: ${language}`,
          "service_requests:",
          "  - formula_variable: echoed",
          "    system: echo",
          "    field_mappings:",
          `      - { field: doubled, value: ${JSON.stringify(CELLS[language])} }`,
          "on_success_hook: output.payload = echoed.response.payload",
          "",
        ].join("\n"),
      );
    writeFileSync(join(root, "in.json"), '{"n": 21}');
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: "" };
    const bass = (name) => [process.execPath, bin, "run", name, "--input", "in.json"];
    const load = [
      process.execPath,
      "--input-type=module",
      "-e",
      `const m = await import(${JSON.stringify(runtimeModule)}); await m.loadPython(); process.exit(0);`,
    ];
    const [python, loaded, javascript, node] = timeCommands(
      [bass("python"), load, bass("javascript"), [process.execPath, "-e", "0"]],
      { runs, cwd: root, env },
    );
    const ratios = python.times.map(
      (time, index) => time / (loaded.times[index] + javascript.times[index] - node.times[index]),
    );
    const ratio = { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
    const floor = loaded.median + javascript.median - node.median;
    return {
      name: "Python bass run, against its floor",
      value: python.median,
      baseline: { ms: floor, label: "Python's load + the JavaScript run" },
      ratio,
      goal: { text: "1.15× its floor or better", max: 1.15, of: "ratio" },
      note: `bass run of a Python integration (1 echo call, a Python cell, on_success_hook) takes ${python.median.toFixed(0)} ms of CPU against ${floor.toFixed(0)} ms for its floor: the Python runtime's bare load from bass's snapshot (${loaded.median.toFixed(0)} ms) plus bass run of the same integration in JavaScript (${javascript.median.toFixed(0)} ms), less one Node start (${node.median.toFixed(0)} ms); ${ratio.median.toFixed(2)}× (spread ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}×, ${runs} rounds, whole processes, no NODE_EXTRA_CA_CERTS)`,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
