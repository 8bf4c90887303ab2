import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type CellRef, cellKey } from "../definition/cells.js";
import { BassError } from "../errors.js";
import { type PythonHost, type PythonOutcome, pythonRuntime } from "../python/runtime.js";
import { unknownTask } from "../python/watchdog.js";
import { callintAnswered, callintRequest } from "./callint.js";
import type { CompileCellContext, CompiledCell, Namespace } from "./cell.js";
import { namespaceData, runMasks, runStateOf } from "./namespace.js";
import type { CellRealm } from "./realm.js";
import type { RemoteCalls } from "./remote.js";
import type { RunState } from "./run-state.js";
import { calladapterAnswered, calladapterRequest } from "./service-requests.js";

const timedOut = "the cell ran past its time limit";

/**
 * Compiles a Python cell once, with CPython (its syntax errors at their file line), into a cell the engine
 * runs as it runs JavaScript's: its value plain data, its errors and time-outs placed at their line.
 */
export function compilePythonCell(cell: CellRef, context: CompileCellContext): CompiledCell {
  const runtime = pythonRuntime();
  // Opening a project with Python definitions loads the runtime first (src/project/open.ts).
  if (!runtime) throw new Error(`${context.integration}: Python cells need the Python runtime loaded first`);
  const at = (line: number, column = 1) =>
    context.locateInString(cell.path, line, column - 1 + (line === 1 ? (cell.offset ?? 0) : 0));
  const filename = context.realm.engine.cellName("bass-py-cell");
  const key = cellKey(cell.label);
  const compiled = runtime.compile(cell.code, filename);
  if ("error" in compiled) {
    const { message, line, column } = compiled.error;
    throw new BassError("DEFINITION_INVALID", `${cell.label}: ${message}`, {
      position: { file: context.file, ...at(line, column) },
    });
  }
  const runNow = (namespace: Namespace, deadline: number) => {
    const task = runStateOf(namespace).poolTask ?? unknownTask;
    // The run is its namespace: a map from it to anything that held the namespace would keep every run
    // alive through the young generation's collections (a WeakMap's value holding its key).
    const outcome: PythonOutcome = runtime.run(compiled.cell, namespace, host, deadline, task, key);
    if (outcome.ok) return outcome.value;
    // An error met past the deadline is the time-out's: a call the cell waited for gave up at it, before the
    // interrupt came.
    const timeout = outcome.kind === "timeout" || performance.now() >= deadline;
    throw new BassError(
      timeout ? "CELL_TIMEOUT" : "CELL_ERROR",
      `${context.integration}: ${cell.label}: ${timeout ? timedOut : outcome.message}`,
      { position: { file: context.file, line: at(outcome.line).line, column: 1 }, cell: cell.label },
    );
  };
  // A cell that may open a vault waits first for what opening one needs and a Python cell cannot await.
  const opensVaults = cell.code.includes("open_vault");
  return {
    label: cell.label,
    run(namespace, deadline) {
      const vaults = opensVaults ? runStateOf(namespace).vaults : undefined;
      return vaults ? vaults.ready().then(() => runNow(namespace, deadline)) : runNow(namespace, deadline);
    },
  };
}

/** What Python cells ask of bass for their run: its names, special functions, shared modules, vaults and
 * calls. One for every run: no run's object crosses into Python. */
const host: PythonHost<Namespace> = {
  read(namespace, name) {
    return Object.hasOwn(namespace, name) ? namespace[name] : undefined;
  },
  special: (namespace, name) => namespace[name],
  readModule: (namespace, name) => moduleReader(runStateOf(namespace).integration.realm)(name),
  openVault(namespace, name) {
    const state = runStateOf(namespace);
    if (!state.vaults) throw new Error("open_vault: this run has no vaults");
    const held = state.vaults.openNow(String(name), state.cellDeadline, runMasks(state));
    // Held until the `with` block or the cell ends, whichever comes first.
    state.holds ??= [];
    state.holds.push(held.release);
    return held;
  },
  callint(namespace, name, payload, options) {
    const state = runStateOf(namespace);
    const remote = remoteOf(state, "callint");
    const request = callintRequest(state, () => namespaceData(namespace), [name, payload, options as never]);
    const started = performance.now();
    // Waited for within the cell's time, as an awaited call of a JavaScript cell is.
    const answer = remote.callint(request, state.cellDeadline - performance.now());
    return withinTime(state, callintAnswered(state, answer, started));
  },
  calladapter(namespace, system, serviceName, payload, options) {
    const state = runStateOf(namespace);
    const remote = remoteOf(state, "calladapter");
    const { target, request } = calladapterRequest([system, serviceName, payload, options as never]);
    const started = performance.now();
    const response = remote.calladapter(target, request, state.cellDeadline - performance.now());
    return withinTime(state, calladapterAnswered(state, target, request, response, started));
  },
};

/**
 * A call's answer, or the cell's time-out where its time ran out while it waited: the cell stops there,
 * as an awaited call past its deadline stops a JavaScript cell, not when the watchdog's interrupt comes.
 */
function withinTime<T>(state: RunState, answer: T): T {
  if (performance.now() >= state.cellDeadline) throw new Error(timedOut);
  return answer;
}

/** The run's remote calls: a Python cell that runs on a thread of its own has them. */
function remoteOf(state: RunState, name: string): RemoteCalls {
  if (state.remote) return state.remote;
  throw new Error(
    `${name}: this Python cell runs on the thread that would make the call (serve's or bass test's own, with serve.workers: 0), so it can make none: give serve one worker or more`,
  );
}

/** A module's file and text (read once per loaded project), for import_module of Python cells. */
const moduleTexts = new WeakMap<object, Map<string, [string, string]>>();

function moduleReader(realm: CellRealm): (name: unknown) => [string, string] {
  const files = realm.modules ?? { dir: ".", paths: {} };
  const read = moduleTexts.get(realm) ?? new Map<string, [string, string]>();
  moduleTexts.set(realm, read);
  return (given) => {
    const name = String(given);
    const known = read.get(name);
    if (known) return known;
    const path = Object.hasOwn(files.paths, name) ? (files.paths[name] as string) : undefined;
    if (path === undefined) {
      const names = Object.keys(files.paths);
      throw new Error(
        `import_module: the project file has no module "${name}"${names.length ? ` (it has ${names.join(", ")})` : " (its modules: names none)"}`,
      );
    }
    if (!path.endsWith(".py"))
      throw new Error(
        `import_module: module "${name}" is ${path}, not a Python file (.py): a Python cell imports Python`,
      );
    const file = resolve(files.dir, path);
    const text: [string, string] = [file, readFileSync(file, "utf8")];
    read.set(name, text);
    return text;
  };
}
