import { loopVariables } from "../definition/cells.js";
import type { Namespace } from "./cell.js";
import { setOwn } from "./paths.js";
import type { InputData, OutputData } from "./record.js";
import { addItem, type RunState } from "./run-state.js";
import { snapshot } from "./snapshot.js";

interface EndOptions {
  state?: "success" | "failure";
  payload?: unknown;
  status?: number;
  headers?: Record<string, string>;
}

// The prototype of every namespace: empty, frozen and without a prototype of its own, so a namespace
// inherits no name. A namespace made with Object.create(null) would be a dictionary-mode object, which
// takes twice the memory to build (1.4 KB against 2.7 KB per run) and is slower to read from.
const namespaceBase: object = Object.freeze(Object.create(null));

/** The namespace of one run: input, output, each formula variable (null), loop variables and special functions. */
export function createNamespace(state: RunState, input: InputData, output: OutputData): Namespace {
  const namespace: Namespace = Object.create(namespaceBase);
  // Known when the integration was compiled: input, output, special functions, loop and formula variables.
  const reserved = state.integration.namespaceNames;
  namespace.input = input;
  namespace.output = output;
  for (const request of state.integration.serviceRequests) namespace[request.formulaVariable] = null;
  for (const name of loopVariables) namespace[name] = undefined;

  const log =
    (level: "info" | "warn" | "error") =>
    (...args: unknown[]) =>
      void addItem(state, { kind: "LOG", level, data: snapshot(args.length === 1 ? args[0] : args) });
  const historize = (value: unknown, label?: unknown) =>
    void addItem(state, {
      kind: "DEBUG",
      ...(label === undefined ? {} : { label: String(label) }),
      data: snapshot(value),
    });

  Object.assign(namespace, {
    end(options: EndOptions = {}) {
      const current = namespace.output as OutputData;
      if (options.payload !== undefined) current.payload = options.payload;
      if (options.status !== undefined) current.status = options.status;
      if (options.headers !== undefined) current.headers = options.headers;
      const failed = options.state ? options.state === "failure" : current.status >= 400;
      state.failure = failed ? (state.failure ?? "error") : undefined;
      state.ended = true;
    },
    map_value(setName: unknown, value: unknown) {
      const mapper = state.integration.valueMappers.get(String(setName));
      if (!mapper)
        throw new Error(`map_value: no value mapping set "${String(setName)}" in ${state.integration.name}`);
      return mapper(value);
    },
    historize,
    debug: historize,
    console: Object.freeze({ log: log("info"), info: log("info"), warn: log("warn"), error: log("error") }),
    keep(values: unknown) {
      if (values === null || typeof values !== "object")
        throw new TypeError("keep expects an object of names and values");
      for (const [name, value] of Object.entries(values)) {
        if (reserved.has(name)) throw new Error(`keep cannot replace "${name}"`);
        setOwn(namespace, name, value);
      }
    },
    add_run_label(label: unknown) {
      const text = String(label);
      if (!state.labels.includes(text)) state.labels.push(text);
    },
    bytes(text: unknown, encoding: BufferEncoding = "utf8") {
      return Buffer.from(String(text), encoding);
    },
  });
  return namespace;
}
