import { readFileSync } from "node:fs";
import { isNativeError } from "node:util/types";
import { createContext, runInContext } from "node:vm";
import type { PyodideAPI } from "pyodide";
import type { PyProxy } from "pyodide/ffi";
import { errorMessage } from "../errors.js";
import { importModule } from "../import-module.js";
import { type BuiltinsGuard, guardBuiltins, lockFunctionConstructors } from "./host-world.js";
import { createKeyPaths } from "./key-paths.js";
import { userSnapshot } from "./snapshot.js";
import { createWatchdog, type Watchdog } from "./watchdog.js";

/** A cell compiled by CPython (cells.py's Cell). */
export type PythonCode = PyProxy;

/**
 * What Python cells ask of bass, for the run whose cell runs now (`R`, what `run` was given for it): the
 * runtime keeps that run while the cell runs and hands it to each call.
 */
export interface PythonHost<R> {
  /**
   * The namespace's own value of a name, undefined where it has none. The namespace itself never crosses
   * into Python: Pyodide makes a proxy of an object without a prototype by throwing and catching an error.
   */
  read(run: R, name: string): unknown;
  /** A special function of the run (`console` and `data_utils` too), as its JavaScript cells have it. */
  special(run: R, name: string): unknown;
  /** A shared module's file and text, for import_module. */
  readModule(run: R, name: unknown): [string, string];
  /** A vault, held by the run until `release` or the end of the cell. */
  openVault(run: R, name: unknown): { vault: object; release(): void };
  /** callint, answered while the cell waits: the child's output. */
  callint(run: R, name: unknown, payload: unknown, options: unknown): unknown;
  /** calladapter, answered while the cell waits: `{ request, response }`. */
  calladapter(run: R, system: unknown, serviceName: unknown, payload: unknown, options: unknown): unknown;
}

/** A name and where it is in a cell: 1-based line and column. */
export type NameAt = [name: string, line: number, column: number];

export interface PythonCellFacts {
  /** Names a cell reads and neither sets nor has as built-ins. */
  free: NameAt[];
  /** `x` of each `x.request` / `x.response` where `x` is such a name. */
  formula_variables: NameAt[];
  /** Names `keep()` keeps. */
  kept: string[];
  /** map_value's first arguments written as string literals. */
  map_value: NameAt[];
  /** The top-level module of each `import` and `from … import`. */
  imports: NameAt[];
}

export interface PythonSyntaxError {
  message: string;
  /** 1-based, within the cell. */
  line: number;
  column: number;
}

export type PythonOutcome =
  | { ok: true; value: unknown }
  | { ok: false; kind: "error" | "timeout"; message: string; line: number };

/** CPython in WebAssembly (Pyodide), loaded once per thread, with what cells need of it (cells.py). */
export interface PythonRuntime {
  /** A cell's code object, or its first syntax error (1-based line and column within the cell). */
  compile(code: string, filename: string): { cell: PythonCode } | { error: PythonSyntaxError };
  /** A cell's first syntax error, if it has one. */
  syntaxError(code: string): PythonSyntaxError | undefined;
  /** What lint needs of a cell that compiles (see cell_facts in cells.py). */
  facts(code: string): PythonCellFacts;
  /**
   * Runs a cell of `run` (one object per run: the interpreter is put back when a cell of another comes)
   * within `deadline` (a `performance.now()` time), its host's methods working on that
   * run while it does; `task` is what the thread's cell reporter says it is part of (see reportCellsTo),
   * and `key` the cell's `cellKey`.
   */
  run<R extends object>(
    cell: PythonCode,
    run: R,
    host: PythonHost<R>,
    deadline: number,
    task: number,
    key: number,
  ): PythonOutcome;
  /**
   * Puts back what the cells run since the last call changed in this thread's JavaScript built-ins (a run
   * of another integration must not find them changed); true when they could not be put back, and the
   * thread must be replaced before it runs anything else. A cell of another run does it first too.
   */
  checkBuiltins(): boolean;
}

// dist/python: beside this file in tsc's build, and one folder over from the CLI bundle.
const folder = new URL("../python/", import.meta.url);
/** This thread's Python runtime: its load, once begun, and the runtime once it has loaded. */
const thisThread: { loading?: Promise<PythonRuntime>; loaded?: PythonRuntime } = {};

/** The thread's Python runtime: loaded on the first call, from the user's memory snapshot (snapshot.ts). */
export function loadPython(): Promise<PythonRuntime> {
  thisThread.loading ??= startPython().then((runtime) => {
    thisThread.loaded = runtime;
    return runtime;
  });
  return thisThread.loading;
}

/** The thread's Python runtime if `loadPython` has loaded it. */
export function pythonRuntime(): PythonRuntime | undefined {
  return thisThread.loaded;
}

async function startPython(): Promise<PythonRuntime> {
  const { loadPyodide, version } = await importModule<typeof import("pyodide")>("pyodide");
  const snapshot = await userSnapshot(version);
  const pyodide = await loadPyodide({
    // The JavaScript world Python sees: an empty object of a context that cannot make code from strings,
    // so that `import js` in a cell, were it let through, would find nothing of the host.
    jsglobals: runInContext("({})", createContext({}, { codeGeneration: { strings: false, wasm: false } })),
    // Nothing is fetched: the standard library comes with the package.
    packages: [],
    stdout: () => {},
    stderr: () => {},
    ...(snapshot ? { _loadSnapshot: snapshot } : {}),
  });
  return createRuntime(pyodide);
}

/** The runtime over a loaded Pyodide: cells.py's functions, and a watchdog for the time limit. */
function createRuntime(pyodide: PyodideAPI): PythonRuntime {
  const cells = pyodide.runPython(cellsModuleSource(), { filename: "bass_cells.py" }) as PyProxy;
  const get = (name: string) => (cells as unknown as { get(name: string): PyProxy }).get(name);
  const compileCell = get("Cell") as unknown as (code: string, filename: string) => PythonCode;
  const syntaxError = get("syntax_error") as unknown as (
    code: string,
    filename: string,
  ) => PyProxy | undefined;
  const connect = get("connect") as unknown as (host: object, objects: object) => void;
  const runCell = get("run_cell") as unknown as (cell: PythonCode, run: number) => unknown;
  const lastFailure = get("last_failure") as unknown as () => PyProxy;
  const cellFacts = get("cell_facts") as unknown as (code: string) => PyProxy;
  const watchdog: Watchdog = createWatchdog();
  pyodide.setInterruptBuffer(watchdog.interrupt);
  // The run whose cell runs now, its host and its deadline: cells.py is connected once, to calls that go to
  // them. Kept here, where no cell reaches: whether a cell is past its deadline decides its stop.
  let running: { run: unknown; host: PythonHost<unknown>; deadline: number } | undefined;
  const now = () => {
    if (!running) throw new Error("a Python special function was called outside the cell that had it");
    return running;
  };
  const readName = (name: string) => now().host.read(now().run, name);
  const keyPaths = createKeyPaths();
  connect(
    {
      pastDeadline: () => running !== undefined && performance.now() >= running.deadline,
      read: readName,
      registerPath: (path: string) => keyPaths.register(path),
      readPath: (index: number) => keyPaths.read(index, readName),
      writePath: (index: number, value: unknown) => keyPaths.write(index, value, readName),
      special: (name: string) => now().host.special(now().run, name),
      readModule: bare((name: unknown) => now().host.readModule(now().run, name)),
      openVault: bare((name: unknown) => {
        const held = now().host.openVault(now().run, name);
        return { vault: bareMethods(held.vault), release: held.release };
      }),
      callint: bare((name: unknown, payload: unknown, options: unknown) =>
        now().host.callint(now().run, name, payload, options),
      ),
      calladapter: bare((system: unknown, serviceName: unknown, payload: unknown, options: unknown) =>
        now().host.calladapter(now().run, system, serviceName, payload, options),
      ),
    },
    jsObjects,
  );
  const failed = get("FAILED") as unknown;
  pyodide.unregisterJsModule("js");
  pyodide.unregisterJsModule("pyodide_js");
  guardBuiltinModules(pyodide, get("FORBIDDEN_MODULES").toJs() as string[]);
  const sealed = (get("seal") as unknown as () => PyProxy)();
  const [restoreOwn, restoreState] = sealed.toJs({ depth: 1 }) as [() => number, () => number];
  sealed.destroy();
  // Made on the first cell: a thread that only compiles cells (lint, serve's main thread) keeps its world.
  let builtins: BuiltinsGuard | undefined;
  let tainted = false;
  let cellsRan = false;
  const checkBuiltins = () => {
    if (cellsRan && builtins?.check() === "tainted") tainted = true;
    cellsRan = false;
    return tainted;
  };
  // Each run's number, by which cells.py keeps the Python objects keep() was given for the run's later cells.
  const runNumbers = new WeakMap<object, number>();
  let runCount = 0;
  // The run of the last cell, by its number: a cell of another run finds the interpreter put back.
  let lastRun = 0;
  // bass's own reading of a cell after a run's cells ran finds the interpreter as sealed too: a run that
  // rebound a built-in (str) changes nothing bass compiles next. The next run's first cell puts it back again.
  const restoreForBass = () => {
    restoreOwn();
    if (lastRun === 0) return;
    restoreState();
    lastRun = 0;
  };
  const findSyntaxError = (code: string, filename: string): PythonSyntaxError | undefined => {
    const error = syntaxError(code, filename);
    if (!error) return undefined;
    const [message, line, column] = error.toJs() as [string, number, number];
    error.destroy();
    return { message, line, column };
  };
  return {
    syntaxError: (code) => {
      restoreForBass();
      return findSyntaxError(code, "cell");
    },
    facts(code) {
      restoreForBass();
      const proxy = cellFacts(code);
      const facts = proxy.toJs({ dict_converter: Object.fromEntries }) as PythonCellFacts;
      proxy.destroy();
      return facts;
    },
    compile(code, filename) {
      restoreForBass();
      const error = findSyntaxError(code, filename);
      return error ? { error } : { cell: compileCell(code, filename) };
    },
    checkBuiltins,
    run(cell, run, host, deadline, task, key) {
      if (!builtins) {
        lockFunctionConstructors();
        builtins = guardBuiltins();
      }
      let number = runNumbers.get(run);
      if (number === undefined) {
        number = ++runCount;
        runNumbers.set(run, number);
      }
      if (number !== lastRun) {
        checkBuiltins();
        restoreState();
        lastRun = number;
      }
      cellsRan = true;
      const outer = running;
      running = { run, host: host as PythonHost<unknown>, deadline };
      watchdog.arm(deadline, task, key);
      let value: unknown;
      try {
        value = runCell(cell, number);
      } finally {
        watchdog.disarm();
        running = outer;
      }
      // Python's None comes over as undefined: a cell's None is JSON's null.
      if (value !== failed) return { ok: true, value: value ?? null };
      const failure = lastFailure();
      const [kind, message, line] = failure.toJs() as ["error" | "timeout", string, number];
      failure.destroy();
      return { ok: false, kind, message, line };
    },
  };
}

/**
 * A function of bass's side as a Python cell calls it: what it throws reaches the cell (as `js_error`) with
 * its name and message only, not a stack naming bass's files. The special functions are the cells' realm's,
 * whose stacks name cells already.
 */
function bare<A extends unknown[], R>(call: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    try {
      return call(...args);
    } catch (error) {
      const made = new Error(errorMessage(error));
      made.name = isNativeError(error) ? error.name : "Error";
      made.stack = `${made.name}: ${made.message}`;
      throw made;
    }
  };
}

/** An object of bass's side whose methods are `bare`. */
function bareMethods<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key);
      return typeof value === "function" ? bare((...args: unknown[]) => value.apply(object, args)) : value;
    },
  });
}

/**
 * Makes `_imp.create_builtin`, by which the import system makes a built-in module, refuse the forbidden
 * modules and a second copy of one made already (a fresh `_signal` would have its functions back): a cell
 * calls `_imp` directly, past the import that the audit hook sees. The real function is held here, where no
 * cell reaches it, and called with a spec of the name read once.
 */
function guardBuiltinModules(pyodide: PyodideAPI, forbidden: readonly string[]): void {
  const imp = pyodide.pyimport("_imp") as PyProxy & { create_builtin: unknown };
  const machinery = pyodide.pyimport("importlib.machinery") as PyProxy & {
    ModuleSpec: PyProxy & { callKwargs(...args: unknown[]): unknown };
    BuiltinImporter: PyProxy;
  };
  const create = imp.create_builtin as (spec: unknown) => unknown;
  const { ModuleSpec, BuiltinImporter } = machinery;
  const refused = new Set([
    ...forbidden,
    ...(pyodide.runPython("list(__import__('sys').modules)").toJs() as string[]),
  ]);
  imp.create_builtin = (spec: PyProxy & { name: unknown }) => {
    const name = spec.name;
    if (typeof name !== "string" || refused.has(name) || refused.has(name.split(".")[0] as string))
      throw new Error(`a cell cannot make the built-in module ${String(name)} anew`);
    return create(ModuleSpec.callKwargs(name, BuiltinImporter, { origin: "built-in" }));
  };
}

/** What cells.py does to JavaScript objects (see connect in cells.py), made here, not from strings there. */
const jsObjects = {
  has: (target: object, key: string) => Object.hasOwn(target, key),
  get: (target: Record<string, unknown>, key: string) =>
    Object.hasOwn(target, key) ? target[key] : undefined,
  set: (target: Record<string, unknown>, key: string, value: unknown) => {
    target[key] = value;
  },
  delete: (target: Record<string, unknown>, key: string) => {
    delete target[key];
  },
  keys: (target: object) => Object.keys(target),
  fromEntries: (entries: Iterable<readonly [PropertyKey, unknown]>) => Object.fromEntries(entries),
  failed: {},
};

/** cells.py, made a module's namespace: runPython gives back its last expression, `globals()`. */
function cellsModuleSource(): string {
  return `${readFileSync(new URL("cells.py", folder), "utf8")}\nglobals()\n`;
}
