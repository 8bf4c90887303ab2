// `npm run bench`: every measurement, each against a baseline timed in the same run (the machines are
// shared and noisy, so absolute times alone say little). Goals are reported, not enforced: the exit code
// is 0 on a MISS and 1 only when a measured command fails.
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { measureCoverage } from "./coverage.js";
import { measureEngine } from "./engine.js";
import { measureHistory } from "./history.js";
import { printHeader, printRow } from "./lib.js";
import { measurePage } from "./page.js";
import { measurePool } from "./pool.js";
import { measurePython } from "./python.js";
import { measureRealm } from "./realm.js";
import { measureRunStart } from "./run-start.js";
import { measureServe } from "./serve.js";
import { measureStartup } from "./startup.js";
import { measureTricks } from "./tricks.js";
import { measureValidate } from "./validate.js";
import { measurePythonValidate } from "./validate-python.js";

const measurements = [
  measureValidate,
  measurePythonValidate,
  measureStartup,
  measureRunStart,
  measureRealm,
  measureEngine,
  measureHistory,
  measureTricks,
  measurePool,
  measurePage,
  measurePython,
  measureCoverage,
  measureServe,
];

const started = performance.now();
console.log(
  `bass bench · node ${process.version} · ${cpus().length} cpus · load ${loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}\n`,
);
const rows = [];
let failed = false;
for (const measure of measurements) {
  try {
    rows.push(...(await measure()));
  } catch (error) {
    failed = true;
    console.error(`${measure.name} failed: ${error.message}\n`);
  }
}
printHeader();
for (const row of rows) printRow(row);
console.log("");
for (const row of rows) if (row.note) console.log(`- ${row.note}`);
console.log(`\nbench took ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = failed ? 1 : 0;
