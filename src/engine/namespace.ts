import { loopVariables } from "../definition/cells.js";
import { setOwn } from "../objects.js";
import { callIntegration } from "./callint.js";
import type { Engine } from "./engine.js";
import { humanize } from "./humanize.js";
import { createScrubber } from "./masks.js";
import { createModuleLoader, type ModuleFiles } from "./modules.js";
import { moneyLibraries } from "./money.js";
import { type CellRealm, createCellRealm, type Namespace, type SpecialImplementation } from "./realm.js";
import { createRunFiles, type RunFiles } from "./run-files.js";
import { addItem, type RunState } from "./run-state.js";
import { callAdapterFromCell } from "./service-requests.js";
import { snapshot } from "./snapshot.js";
import type { InputData, OutputData } from "./types.js";
import type { RunMasks } from "./vault.js";

interface EndOptions {
  state?: "success" | "failure";
  payload?: unknown;
  status?: number;
  headers?: Record<string, string>;
}

/**
 * Gives a namespace its run as a private field (the base constructor returns the namespace, so the field
 * lands on it): no cell can reach it, not even through `arguments[0]`, which is the namespace, and it is
 * cheaper than a WeakMap from namespace to run (bench/tricks.js, "run as private field").
 */
class Returning {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the field is stamped onto the namespace itself.
    return target;
  }
}

class RunOf extends Returning {
  #state: RunState;

  constructor(namespace: Namespace, state: RunState) {
    super(namespace);
    this.#state = state;
  }

  static of(namespace: Namespace): RunState {
    if (!(#state in (namespace as object)))
      throw new TypeError("a special function is read from a run's namespace only");
    return (namespace as unknown as RunOf).#state;
  }
}

type Special = (state: RunState, namespace: Namespace) => unknown;

/** The special functions of docs/reference.md#cells-namespace-and-special-functions, each made for its run when a cell first reads it. */
const specials: Readonly<Record<string, Special>> = {
  end:
    (state, namespace) =>
    (options: EndOptions = {}) => {
      const current = namespace.output as OutputData;
      if (options.payload !== undefined) current.payload = options.payload;
      if (options.status !== undefined) current.status = options.status;
      if (options.headers !== undefined) current.headers = options.headers;
      const failed = options.state ? options.state === "failure" : current.status >= 400;
      state.failure = failed ? (state.failure ?? "error") : undefined;
      state.ended = true;
    },
  map_value: (state) => (setName: unknown, value: unknown) => {
    const mapper = state.integration.valueMappers.get(String(setName));
    if (!mapper)
      throw new Error(`map_value: no value mapping set "${String(setName)}" in ${state.integration.name}`);
    return mapper(value);
  },
  historize: (state) => historizer(state),
  debug: (state) => historizer(state),
  console: (state) =>
    Object.freeze({
      log: logger(state, "info"),
      info: logger(state, "info"),
      warn: logger(state, "warn"),
      error: logger(state, "error"),
    }),
  keep: (state, namespace) => (values: unknown) => {
    if (values === null || typeof values !== "object")
      throw new TypeError("keep expects an object of names and values");
    for (const [name, value] of Object.entries(values)) {
      if (state.integration.namespaceNames.has(name)) throw new Error(`keep cannot replace "${name}"`);
      setOwn(namespace, name, value);
    }
  },
  humanize: (state) => (name: unknown) => humanize(state.integration.humanNames, String(name)),
  add_run_label: (state) => (label: unknown) => {
    const text = String(label);
    if (!state.labels.includes(text)) state.labels.push(text);
  },
  bytes:
    () =>
    (text: unknown, encoding: BufferEncoding = "utf8") =>
      Buffer.from(String(text), encoding),
  get_namespace: (state, namespace) => () => maskedNamespace(state, namespace),
  open_vault: (state) => async (name: unknown) => {
    if (!state.vaults) throw new Error("open_vault: this run has no vaults");
    const cell = state.cellsEnded;
    const { vault, release } = await state.vaults.open(String(name), state.cellDeadline, runMasks(state));
    if (state.cellsEnded !== cell) {
      release();
      throw new Error(`open_vault: the cell that opened vault ${String(name)} ended before it was free`);
    }
    // Held until the cell ends: a cell that no longer runs holds nothing, whatever it kept.
    state.holds ??= [];
    state.holds.push(release);
    return vault;
  },
  open_file: (state) => (name: unknown, mode?: unknown) => runFiles(state).open(name, mode),
  list_files: (state) => () => runFiles(state).list(),
  calladapter:
    (state) =>
    (...args: unknown[]) =>
      callAdapterFromCell(state, args as Parameters<typeof callAdapterFromCell>[1]),
  callint:
    (state, namespace) =>
    (...args: unknown[]) =>
      callIntegration(state, () => namespaceData(namespace), args as Parameters<typeof callIntegration>[2]),
};

/** What the run masks, as a vault it opens needs it. */
export function runMasks(state: RunState): RunMasks {
  return {
    add: (secret) => state.maskedValues.add(secret),
    holds: (text) => createScrubber([...state.maskedValues, ...state.secrets])(text) !== text,
  };
}

/** The run a namespace belongs to, for bass's own code (Python cells' special functions); never a cell's. */
export function runStateOf(namespace: Namespace): RunState {
  return RunOf.of(namespace);
}

function runFiles(state: RunState): RunFiles {
  state.files ??= createRunFiles(state.uploaded);
  return state.files;
}

/** The namespace's data: its values, not the special functions or loop variables that are not set. */
export function namespaceData(namespace: Namespace): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const name of Object.keys(namespace)) {
    const value = namespace[name];
    if (value === undefined || typeof value === "function" || specialNames.has(name)) continue;
    setOwn(data, name, value);
  }
  return data;
}

/**
 * A copy of the run's namespace for debugging, masked as its record is (masked values and secrets by
 * value): its data only, not the special functions or loop variables that are not set.
 */
function maskedNamespace(state: RunState, namespace: Namespace): unknown {
  return createScrubber([...state.maskedValues, ...state.secrets])(snapshot(namespaceData(namespace)));
}

function historizer(state: RunState) {
  return (value: unknown, label?: unknown) =>
    void addItem(state, {
      kind: "DEBUG",
      ...(label === undefined ? {} : { label: String(label) }),
      data: snapshot(value),
    });
}

function logger(state: RunState, level: "info" | "warn" | "error") {
  return (...args: unknown[]) =>
    void addItem(state, { kind: "LOG", level, data: snapshot(args.length === 1 ? args[0] : args) });
}

const specialNames = new Set([...Object.keys(specials), ...Object.keys(moneyLibraries), "import_module"]);

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * The realm the cells of one loaded project run in. Its namespaces inherit the special functions: reading
 * one makes it for the namespace's run and keeps it as the namespace's own, since most runs call none.
 */
export function createRunRealm(
  engine: Engine,
  modules: ModuleFiles = { dir: ".", paths: {} },
  cellMemoryMb?: number,
): CellRealm {
  const importModule = createModuleLoader(() => realm, modules);
  const realm = createCellRealm({
    engine,
    cellMemoryMb,
    specialNames: [...Object.keys(specials), "import_module"],
    natives: moneyLibraries,
    special: (namespace, name) =>
      name === "import_module"
        ? importModule
        : ((specials[name] as Special)(RunOf.of(namespace), namespace) as SpecialImplementation),
  });
  realm.modules = modules;
  return realm;
}

/**
 * The namespace of one run, made in its integration's realm: input and output (copied in), each formula
 * variable (null), loop variables and special functions.
 */
export function createNamespace(
  state: RunState,
  input: InputData,
  output: OutputData,
  parentint: unknown = null,
): Namespace {
  const { realm } = state.integration;
  realm.clearMatch();
  const namespace = realm.createNamespace();
  new RunOf(namespace, state);
  namespace.input = realm.adopt(input);
  namespace.output = realm.adopt(output);
  namespace.run_history_id = state.id;
  // A sync callint child sees its parent's namespace as it was at the call, frozen: read-only.
  namespace.parentint = parentint === null ? null : deepFreeze(realm.adopt(parentint));
  for (const request of state.integration.serviceRequests) namespace[request.formulaVariable] = null;
  for (const name of loopVariables) namespace[name] = undefined;
  return namespace;
}
