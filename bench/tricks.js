// A/B cases for the engine's speed tricks: each trick against the plain code it replaces, timed in
// alternating rounds of the same run. A trick stays only while its case shows it beyond the spread of
// the rounds; the figures live here, the code keeps a one-line why.
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { createContext, runInContext } from "node:vm";
import { monotonicFactory } from "ulid";
import { median } from "./lib.js";

const dist = new URL("../dist/", import.meta.url);

/** The cases, each a few seconds: rounds of `roundMs` for the trick and for the plain code, alternating. */
export async function measureTricks({ rounds = 5, roundMs = 250 } = {}) {
  const { createDeadlines } = await import(new URL("engine/deadlines.js", dist));
  const { isoTime, runSignal } = await import(new URL("engine/run-state.js", dist));
  const { CallContext } = await import(new URL("engine/service-requests.js", dist));
  const { specialFunctionNames } = await import(new URL("definition/cells.js", dist));
  const { pooledRandom } = await import(new URL("engine/run-id.js", dist));
  const { createCellRealm } = await import(new URL("engine/realm.js", dist));
  const { createRandomPool } = await import(new URL("random-pool.js", dist));
  const cases = [
    deadlineCase(createDeadlines().within),
    timestampCase(isoTime),
    namespaceCase(specialFunctionNames),
    callContextCase(CallContext, runSignal),
    randomCase(pooledRandom),
    adoptCase(createCellRealm),
    ivCase(createRandomPool),
  ];
  const rows = [];
  for (const { name, trick, plain, unit, note } of cases) {
    const trickRates = [];
    const plainRates = [];
    await timeRate(trick, roundMs / 2);
    await timeRate(plain, roundMs / 2);
    for (let round = 0; round < rounds; round++) {
      trickRates.push(await timeRate(trick, roundMs));
      plainRates.push(await timeRate(plain, roundMs));
    }
    const ratios = trickRates.map((rate, index) => plainRates[index] / rate);
    rows.push({
      name,
      value: median(trickRates),
      unit,
      baseline: { value: median(plainRates), label: "plain code" },
      note: `${name}: the trick costs ${spread(ratios)}× the plain code per ${unit.split("/")[0]} (min–median–max of ${rounds} alternating rounds of ${roundMs} ms; below 1 is a gain). ${note}`,
    });
  }
  return rows;
}

function spread(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return [sorted[0], median(sorted), sorted.at(-1)].map((value) => value.toFixed(2)).join("–");
}

/** Units per second of `work` (one call does `work.units` units) over `ms`. */
async function timeRate(work, ms) {
  const started = performance.now();
  let units = 0;
  let elapsed = 0;
  while (elapsed < ms) {
    const pending = work();
    if (pending instanceof Promise) await pending;
    units += work.units;
    elapsed = performance.now() - started;
  }
  return (units * 1000) / elapsed;
}

/** `units` per call of `run`, as timeRate reads it. */
function batch(units, run) {
  run.units = units;
  return run;
}

// ---- deadlines.ts: one list and one timer for every wait, against a Timeout per wait.
// 2026-11-24, 2 shared cores under load, 3 runs of 5 rounds: the trick cost 0.37–0.60–0.67× the plain code
// (min–median of run medians–max of rounds; one round of 1.85× when a neighbour took the cores).

const timedOut = Symbol("timed out");

function plainWithinDeadline(work, deadline, onTimeout) {
  const settled = Promise.resolve(work);
  if (deadline === Number.POSITIVE_INFINITY) return settled;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => {
        try {
          onTimeout();
        } finally {
          resolve(timedOut);
        }
      },
      Math.max(1, Math.ceil(deadline - performance.now())),
    );
    settled.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function deadlineCase(withinDeadline) {
  // 64 runs at once, each waiting on an adapter that answers at once (as echo and mocks do).
  const waits = (within) =>
    batch(64, () => {
      const deadline = performance.now() + 30_000;
      const all = [];
      for (let index = 0; index < 64; index++) all.push(within(Promise.resolve(index), deadline, () => {}));
      return Promise.all(all);
    });
  return {
    name: "deadline list (deadlines.ts)",
    trick: waits(withinDeadline),
    plain: waits(plainWithinDeadline),
    unit: "waits/s",
    note: "64 concurrent waits on answers that come at once; plain: a setTimeout and clearTimeout per wait.",
  };
}

// ---- run-state.ts: isoTime, the ISO text of a millisecond made once, against toISOString per item.
// 2026-11-24, 2 shared cores under load, 3 runs of 5 rounds: the trick cost 0.05–0.08–0.11× the plain code.

function timestampCase(isoTime) {
  // A run stamps its start, each of its items (about six in a small run) and its end.
  const stamps = (format) =>
    batch(800, () => {
      let length = 0;
      for (let run = 0; run < 100; run++)
        for (let item = 0; item < 8; item++) length += format(Date.now()).length;
      return length;
    });
  return {
    name: "timestamp cache (run-state.ts)",
    trick: stamps(isoTime),
    plain: stamps((ms) => new Date(ms).toISOString()),
    unit: "stamps/s",
    note: "8 stamps per run at Date.now(); plain: new Date(ms).toISOString() each time.",
  };
}

// ---- namespace.ts: the run as a private field stamped on the namespace, against a WeakMap.
// 2026-11-24, 2 shared cores under load, 3 runs of 5 rounds: the trick cost 0.13–0.26–0.34× the plain code.

function createNamespaces(names, runOf, remember) {
  const base = Object.create(null);
  for (const name of names) {
    Object.defineProperty(base, name, {
      get() {
        const state = runOf(this);
        const value = (label) => state.labels.push(label);
        Object.defineProperty(this, name, { value, writable: true, enumerable: true, configurable: true });
        return value;
      },
    });
  }
  Object.freeze(base);
  return (state) => {
    const namespace = Object.create(base);
    remember(namespace, state);
    namespace.input = state.input;
    namespace.output = null;
    namespace.person = null;
    return namespace;
  };
}

class Returning {
  constructor(target) {
    // biome-ignore lint/correctness/noConstructorReturn: the trick under measure.
    return target;
  }
}

class RunOf extends Returning {
  #state;
  constructor(namespace, state) {
    super(namespace);
    this.#state = state;
  }
  static of(namespace) {
    return namespace.#state;
  }
}

function namespaceCase(names) {
  const runs = new WeakMap();
  const withField = createNamespaces(names, RunOf.of, (namespace, state) => new RunOf(namespace, state));
  const withMap = createNamespaces(
    names,
    (namespace) => runs.get(namespace),
    (namespace, state) => runs.set(namespace, state),
  );
  // A run's namespace, and one special function read by a cell (most runs read none or one).
  const make = (create) =>
    batch(1000, () => {
      for (let index = 0; index < 1000; index++) create({ labels: [], input: index }).add_run_label("x");
    });
  return {
    name: "run as private field (namespace.ts)",
    trick: make(withField),
    plain: make(withMap),
    unit: "namespaces/s",
    note: "a namespace made and one special function read; plain: a module WeakMap from namespace to run.",
  };
}

// ---- service-requests.ts: CallContext, a class with a shared signal getter, against an object literal.
// 2026-11-24, 2 shared cores under load, 3 runs of 5 rounds: the trick cost 0.24–0.37–0.63× the plain code.

function literalContext(state, request, sridx, runSignal) {
  return {
    system: request.system,
    formulaVariable: request.formulaVariable,
    sridx,
    deadline: state.runDeadline,
    get signal() {
      return runSignal(state);
    },
  };
}

function callContextCase(CallContext, runSignal) {
  const request = { system: "core", formulaVariable: "person" };
  // 64 runs at once, each holding its call's context across the adapter's await, as a call does.
  const calls = (create) =>
    batch(64, () => {
      const all = [];
      for (let index = 0; index < 64; index++) {
        const state = { runDeadline: index, abort: undefined, items: new Array(16).fill(index) };
        const context = create(state, request, null);
        all.push(Promise.resolve().then(() => context.system.length + context.deadline));
      }
      return Promise.all(all);
    });
  return {
    name: "CallContext class (service-requests.ts)",
    trick: calls((state, req, sridx) => new CallContext(state, req, sridx)),
    plain: calls((state, req, sridx) => literalContext(state, req, sridx, runSignal)),
    unit: "calls/s",
    note: "64 concurrent calls, each context held across an await; plain: an object literal with a signal getter.",
  };
}

// ---- run-id.ts: run ids drawing from a pool of random bytes, against ulid's one system call per character.

function randomCase(pooledRandom) {
  // Every id in a millisecond of its own, as serve's ids at a few runs per millisecond mostly are: each
  // draws a fresh random part (ids of one millisecond count up from the first instead).
  const ids = (next) => {
    let time = Date.now();
    return batch(100, () => {
      let length = 0;
      for (let id = 0; id < 100; id++) length += next(++time).length;
      return length;
    });
  };
  return {
    name: "pooled random bytes (run-id.ts)",
    trick: ids(monotonicFactory(pooledRandom())),
    plain: ids(monotonicFactory()),
    unit: "ids/s",
    note: "a new millisecond per id; plain: ulid's monotonicFactory with its own source (crypto.getRandomValues of one byte per character).",
  };
}

// ---- realm.ts: plain data copied into the cells' realm by a walk on bass's side, against the walk inside
// the realm, which reads each object's prototype and keys there (slow for another realm's objects).
// 2026-11-27, 2 shared cores: the trick cost 0.14× the plain code (a walk in the realm that told plain
// objects by their constructor and read them with for-in cost 0.73×).

function adoptCase(createCellRealm) {
  const realm = createCellRealm({ specialNames: [], special: () => () => {} });
  const plainAdopt = runInContext(
    `(hostPrototype) => {
      const adopt = (value) => {
        if (value === null || typeof value !== "object") return value;
        if (Array.isArray(value)) return value.map(adopt);
        if (Object.getPrototypeOf(value) !== hostPrototype) return value;
        const copy = {};
        for (const key of Object.keys(value)) copy[key] = adopt(value[key]);
        return copy;
      };
      return adopt;
    }`,
    createContext(Object.create(null)),
  )(Object.prototype);
  // A run's input as serve hands it over.
  const input = () => ({
    payload: { first_name: " Grace ", email: "grace.hopper@example.com", tax_id: "123-45-6789" },
    method: "POST",
    path: {},
    params: {},
    headers: { "content-type": "application/json", host: "127.0.0.1" },
    fullpath: "/bench/people",
    user: null,
  });
  const copies = (adopt) =>
    batch(1000, () => {
      for (let index = 0; index < 1000; index++) adopt(input());
    });
  return {
    name: "plain data copied from bass's side (realm.ts)",
    trick: copies((value) => realm.adopt(value)),
    plain: copies(plainAdopt),
    unit: "inputs/s",
    note: "a run's input copied into the cells' realm; plain: a walk in the realm, reading the prototype and Object.keys of each object there.",
  };
}

// ---- seal.ts: a seal's IV taken from a pool of random bytes, against asking the system for 12 bytes.
// 2026-11-27, 2 shared cores: the trick cost 0.02× the plain code.

function ivCase(createRandomPool) {
  const pool = createRandomPool();
  const ivs = (take) =>
    batch(1000, () => {
      let length = 0;
      for (let index = 0; index < 1000; index++) length += take().length;
      return length;
    });
  return {
    name: "pooled IVs (seal.ts)",
    trick: ivs(() => pool.bytes(12)),
    plain: ivs(() => randomBytes(12)),
    unit: "IVs/s",
    note: "a 12-byte IV per sealed request; plain: crypto.randomBytes(12).",
  };
}
