import { isDate, isMap, isNativeError, isPromise, isSet } from "node:util/types";
import { setFlagsFromString } from "node:v8";
import { compileFunction, createContext, runInContext } from "node:vm";
import { errorMessage, isBassError, runFailureCodes } from "../errors.js";
import { collectGarbage, heapBytes } from "../heap.js";
import { tameSource } from "../tame.js";
import type { Engine } from "./engine.js";
import type { ModuleFiles } from "./modules.js";
import { recordAsText } from "./snapshot.js";
import type { CellMark } from "./thread-marks.js";

/** The names every cell of one run sees (docs/reference.md#cells-namespace-and-special-functions): an object that inherits no name, one per run. */
export type Namespace = Record<string, unknown>;

/**
 * One call of a cell as the realm's checks see it: its deadline, and what its loops and `throw`s leave. The
 * cell's code, the functions it defines among it, holds it, so promise work a cell starts is held to its
 * own deadline whenever it runs.
 */
export interface CellCall {
  readonly deadline: number;
  /** Set once a check found the deadline passed: every later check throws, so no `catch` outlives it. */
  readonly expired: boolean;
  /** The last value a `throw` statement of the cell threw, with its line in the cell. */
  readonly lastThrow: { value: unknown; line: number } | undefined;
  /** Set with `expired` when a check found the thread's memory past what the cell may grow it to. */
  readonly heapFull: boolean;
  /** What the thread's marks say while the call's code holds it. */
  readonly mark: CellMark;
}

/** A cell compiled in the realm: it takes the namespace and its call. */
export type RealmCell = (namespace: Namespace, call: CellCall) => unknown;

/** A special function's implementation for one run, or an object of them (`console`). */
export type SpecialImplementation =
  | ((...args: unknown[]) => unknown)
  | Record<string, (...args: unknown[]) => unknown>;

export interface CellRealmOptions {
  engine: Engine;
  /** The names of the special functions; reading one calls `special` with the namespace that was read. */
  specialNames: readonly string[];
  special(namespace: Namespace, name: string): SpecialImplementation;
  /** Libraries made in the realm itself, by the name cells read them under. */
  natives?: Readonly<Record<string, NativeLibrary>>;
  /** How much a cell may grow its thread's memory (`limits.cell_memory_mb`); unset, nothing checks. */
  cellMemoryMb?: number | undefined;
}

/**
 * A library made in the realm: `source` is a function expression, evaluated there once, when a cell first
 * reads the name; it is called with the libraries `uses` names, and what it returns is frozen as the
 * built-ins are.
 */
export interface NativeLibrary {
  source(): string;
  uses?: readonly string[];
  /** The prototypes of values it makes that history records as their text, as JSON writes them (a decimal). */
  textPrototypes?: (made: unknown) => readonly object[];
}

/**
 * The realm cells run in (docs/architecture.md#cells-that-cannot-hang-serve-leak-memory-or-reach-the-host): a context of its own whose intrinsics are frozen and where code
 * cannot be made from strings (`eval`, `Function`), so no run changes what another run, or bass, sees.
 * Nothing of bass's own realm is reachable from a cell: the namespace, the special functions and the
 * checks the compiled code calls are made in the realm, and what bass hands in is copied into it.
 */
export interface CellRealm {
  /** What its runs share with the other runs of the host: deadlines, cell names, left rejections. */
  engine: Engine;
  /** The project file's `modules:`, for `import_module` of Python cells, which read them themselves. */
  modules?: ModuleFiles;
  /** What a cell may grow its thread's memory by, checked with its deadline; unset, unbounded. */
  cellMemoryMb?: number | undefined;
  /**
   * A function of the realm from a cell's prepared code: an expression's value or a body's `return`, an
   * async function's promise where the cell awaits. Line 1 of the cell is line 2 of `filename`.
   */
  compile(code: string, form: "expression" | "body", isAsync: boolean, filename: string): RealmCell;
  /**
   * A call of a cell that must end by `deadline` (a `performance.now()` time), of the pool's `task`, for
   * the cell whose `cellKey` is `cell`.
   */
  createCall(deadline: number, task: number, cell: number): CellCall;
  /**
   * Runs `work`, bass's own code that reads values cells made (a getter, `toJSON`, a Proxy's trap may run),
   * as a cell of its own: within `call`'s deadline and marked for the pool's watch. Cell code it runs past
   * the deadline throws, and `call.expired` says so.
   */
  readValues<T>(call: CellCall, work: () => T): T;
  /** Plain data copied into the realm (objects, arrays, byte strings, dates); a primitive is itself. */
  adopt<T>(value: T): T;
  /** A namespace made in the realm, inheriting the special functions. */
  createNamespace(): Namespace;
  /** Clears what RegExp's legacy statics keep of the realm's last match (RegExp.input, $1, …). */
  clearMatch(): void;
  /** The call that runs a cell now, so that functions of other cells it calls keep to its deadline. */
  enter(call: CellCall | undefined): CellCall | undefined;
  /** Ends a call at its deadline: every later check of its code throws. */
  expire(call: CellCall): void;
  /** Freezes a value of the realm and all it reaches, as the built-ins are. */
  harden(value: unknown): void;
}

/** The realm's side, evaluated in it once: its checks, its copy of plain data and the namespace's base. */
const bootstrap = String.raw`(host) => {
  "use strict";
  const { now, heapOver, special, specialNames, nativeNames, native } = host;
  const timeLimit = "the cell ran past its time limit";
  // A call's state is private to it: a cell that reaches its call object (it never should) can read it,
  // not lift its deadline.
  class Call {
    #deadline;
    #task;
    #cell;
    #expired = false;
    #lastThrow = undefined;
    #countdown = 1;
    #every = 1;
    #checked = now();
    // Where the thread's memory stood at the call's first clock check, noted by the host (heapOver).
    #memory = { heapCeiling: undefined };
    #heapFull = false;
    constructor(deadline, task, cell) {
      this.#deadline = deadline;
      this.#task = task;
      this.#cell = cell;
    }
    get deadline() {
      return this.#deadline;
    }
    get expired() {
      return this.#expired;
    }
    get heapFull() {
      return this.#heapFull;
    }
    get lastThrow() {
      return this.#lastThrow;
    }
    get mark() {
      return { deadline: this.#deadline, task: this.#task, cell: this.#cell };
    }
    static expire(call) {
      call.#expired = true;
    }
    static thrown(call, line, value) {
      call.#lastThrow = { value, line };
      return value;
    }
    // How often a loop looks at the clock adapts to what one turn costs: every turn of a slow body, about
    // every thousandth of a fast one, so a deadline holds whatever a body does.
    static tick(running) {
      if (running.#expired) throw new RangeError(timeLimit);
      if (--running.#countdown > 0) return;
      const time = now();
      if (time > running.#deadline) {
        running.#expired = true;
        throw new RangeError(timeLimit);
      }
      if (heapOver(running.#memory)) {
        running.#expired = running.#heapFull = true;
        throw new RangeError("the cell grew its thread's memory past limits.cell_memory_mb");
      }
      running.#every = time - running.#checked > 1 ? 1 : Math.min(running.#every * 2, 1024);
      running.#countdown = running.#every;
      running.#checked = time;
    }
  }
  Object.freeze(Call.prototype);
  Object.freeze(Call);
  let current;
  // The call whose promise work runs now (after an await, in a callback), marked held until the thread is
  // idle: the pool's watch then sees it as it sees a cell's first part.
  let held;
  const hold = (call) => {
    if (current !== undefined || held === call || call === undefined) return;
    held = call;
    host.hold(call.mark, () => {
      held = undefined;
    });
  };
  const tick = (call) => {
    const running = current ?? call;
    // A shared module's function called outside any cell (its own top level): no deadline to keep.
    if (running === undefined) return;
    if (current === undefined) hold(running);
    Call.tick(running);
  };
  // After an await: the cell's code goes on, under its deadline and marked.
  const resume = (call, value) => {
    tick(call);
    return value;
  };
  const get = (namespace, name) => {
    if (name in namespace) return namespace[name];
    throw new ReferenceError(name + " is not defined");
  };
  const thrown = (call, line, value) => Call.thrown(call, line, value);
  // What bass made is copied, its plain objects the fast way. What is made here already is kept, but
  // walked: bass may have written its own values into it (a field mapping's literal into a cell's object),
  // and those are put in its place as copies.
  const realmPrototypes = new Set([Object.prototype, Array.prototype, null]);
  const adoptWithin = (value, depth) => {
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item === null || typeof item !== "object") continue;
      const adopted = adopt(item, depth + 1);
      if (adopted !== item) {
        try {
          own(value, key, adopted);
        } catch {
          // A frozen object keeps what it holds.
        }
      }
    }
    return value;
  };
  const adopt = (value, depth = 0) => {
    // A function of bass's side (a vault's operations) comes in wrapped, as the special functions do:
    // its own Function constructor never reaches a cell.
    if (typeof value === "function") return value instanceof Function ? value : wrap(value);
    if (value === null || typeof value !== "object") return value;
    if (depth > 200) return null;
    if (Array.isArray(value)) {
      if (Object.getPrototypeOf(value) === Array.prototype) return adoptWithin(value, depth);
      const copy = new Array(value.length);
      for (let index = 0; index < value.length; index++) copy[index] = adopt(value[index], depth + 1);
      return copy;
    }
    const prototype = Object.getPrototypeOf(value);
    if (realmPrototypes.has(prototype)) return adoptWithin(value, depth);
    if (prototype !== host.objectPrototype) {
      if (ArrayBuffer.isView(value))
        return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
      if (host.isDate(value)) return new Date(value.getTime());
      if (host.isMap(value))
        return new Map(Array.from(value, ([key, item]) => [adopt(key, depth + 1), adopt(item, depth + 1)]));
      if (host.isSet(value)) return new Set(Array.from(value, (item) => adopt(item, depth + 1)));
    }
    const copy = {};
    for (const key of Object.keys(value)) {
      const item = adopt(value[key], depth + 1);
      // A name the frozen Object.prototype holds (constructor, toString) cannot be assigned: it is defined.
      if (key in copy) own(copy, key, item);
      else copy[key] = item;
    }
    return copy;
  };
  const own = (namespace, name, value) => {
    Object.defineProperty(namespace, name, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  // What bass's side throws reaches the cell as an error of the realm, with its message, and the code of
  // a failure a run reports by name (callint_depth).
  const realmError = (error) => {
    const Kind = { TypeError, RangeError, ReferenceError, SyntaxError }[host.errorName(error)] ?? Error;
    const made = new Kind(host.errorMessage(error));
    const code = host.errorCode(error);
    if (code !== undefined) Object.defineProperty(made, "code", { value: code });
    return made;
  };
  // A promise of bass's side (callint) becomes a promise of the realm, settled with what it gives, adopted.
  const callHost = (implementation, args) => {
    const caller = current ?? held;
    let result;
    try {
      result = implementation(...args);
    } catch (error) {
      throw realmError(error);
    }
    if (!host.isPromise(result)) return host.adopt(result);
    // What its settling runs (the cell's callbacks, built-ins among them) is the calling cell's work.
    return new Promise((resolve, reject) =>
      result.then(
        (value) => {
          hold(caller);
          resolve(host.adopt(value));
        },
        (error) => {
          hold(caller);
          reject(realmError(error));
        },
      ),
    );
  };
  const wrap = (implementation) => (...args) => callHost(implementation, args);
  const base = Object.create(null);
  for (const name of specialNames) {
    Object.defineProperty(base, name, {
      get() {
        // What bass's side throws is made the realm's here too: a getter called on another object
        // (through its descriptor) must not hand a cell an error of bass's realm.
        let made;
        try {
          made = special(this, name);
        } catch (error) {
          throw realmError(error);
        }
        const value = typeof made === "function"
          ? wrap(made)
          : Object.freeze(Object.fromEntries(Object.keys(made).map((key) => [key, wrap(made[key])])));
        return own(this, name, value);
      },
      set(value) {
        own(this, name, value);
      },
    });
  }
  // Libraries made in the realm (decimal): their values are the realm's own, handed out as they are.
  for (const name of nativeNames) {
    Object.defineProperty(base, name, {
      get() {
        let made;
        try {
          made = native(name);
        } catch (error) {
          throw realmError(error);
        }
        return own(this, name, made);
      },
      set(value) {
        own(this, name, value);
      },
    });
  }
  Object.freeze(base);
  // The few globals of the web platform cells have, made here so that what they give is of the realm.
  class TextEncoder {
    get encoding() {
      return "utf-8";
    }
    encode(text = "") {
      return callHost(host.encode, [String(text)]);
    }
  }
  class TextDecoder {
    #label;
    constructor(label = "utf-8") {
      this.#label = String(label);
    }
    get encoding() {
      return this.#label;
    }
    decode(bytes = new Uint8Array(0)) {
      return callHost(host.decode, [bytes, this.#label]);
    }
  }
  // A cell may not block its thread in a way its deadline check cannot see.
  Object.defineProperty(Atomics, "wait", {
    value: function wait() {
      throw new TypeError("Atomics.wait is not available to cells: it would hold the thread past the cell's time limit");
    },
  });
  // A stack a cell can read names its cells and shared modules only: a frame of bass's files (an absolute
  // path or URL, node's own, a library made here) would show where bass is installed. Node formats the
  // stacks of a context's errors with that context's Error.prepareStackTrace, frozen with Error below.
  const hostFile = /^(?:[a-z][a-z0-9+.-]*:|\/|\\|[A-Za-z]:[\\/])/i;
  Object.defineProperty(Error, "prepareStackTrace", {
    value: (error, frames) => {
      let text;
      try {
        text = String(error);
      } catch {
        text = "Error";
      }
      for (const frame of frames) {
        const file = frame.getFileName();
        if (file !== undefined && file !== null && !hostFile.test(file)) text += "\n    at " + frame;
      }
      return text;
    },
  });
  Object.defineProperties(globalThis, {
    __tick: { value: tick },
    // bass's launcher turns --expose-gc on (src/heap.ts): the realm's gc is none, for good.
    gc: { value: undefined, writable: false },
    __resume: { value: resume },
    __get: { value: get },
    __thrown: { value: thrown },
    TextEncoder: { value: TextEncoder },
    TextDecoder: { value: TextDecoder },
    atob: { value: (text) => callHost(host.atob, [text]) },
    btoa: { value: (text) => callHost(host.btoa, [text]) },
    structuredClone: { value: (value) => callHost(host.structuredClone, [value]) },
  });

  // Every object reachable from the globals is frozen, and every constructor; a plain built-in method
  // (no prototype of its own) only takes no new property, since freezing the few hundred of them was most
  // of a realm's cost. Its behaviour cannot change, and a frozen prototype keeps it in place.
  const hardened = new Set();
  const harden = (value) => {
    if ((typeof value !== "object" && typeof value !== "function") || value === null || hardened.has(value)) return;
    hardened.add(value);
    if (typeof value === "function" && !Object.hasOwn(value, "prototype")) {
      Object.preventExtensions(value);
      return;
    }
    Object.freeze(value);
    harden(Object.getPrototypeOf(value));
    for (const key of Reflect.ownKeys(value)) {
      const property = Reflect.getOwnPropertyDescriptor(value, key);
      if ("value" in property) harden(property.value);
      else {
        harden(property.get);
        harden(property.set);
      }
    }
  };
  const tame = ${tameSource};
  for (const Kind of [Object, Array, Function, Error, TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError, AggregateError, Date, RegExp, Promise, Map, Set])
    tame(Kind.prototype);
  // The global object itself cannot be frozen, and no cell reaches it: its properties can.
  hardened.add(globalThis);
  for (const key of Reflect.ownKeys(globalThis)) harden(Reflect.getOwnPropertyDescriptor(globalThis, key).value);
  // Intrinsics no global names: the prototypes of async and generator functions and of iterators.
  for (const intrinsic of [
    async () => {}, function* () {}, async function* () {}, [].values(), new Map().values(), new Set().values(),
    ""[Symbol.iterator](), /x/[Symbol.matchAll](""), new Intl.Segmenter().segment(""),
    new Intl.Segmenter().segment("")[Symbol.iterator](),
  ]) {
    // A built-in with no prototype of its own is only kept from new properties: what it inherits is frozen
    // here (the async function's and generator's prototypes, the segments' ones).
    harden(intrinsic);
    harden(Object.getPrototypeOf(intrinsic));
  }
  return Object.freeze({
    adopt,
    object: () => ({}),
    array: (length) => new Array(length),
    own,
    prototypeNames: Object.getOwnPropertyNames(Object.prototype),
    harden,
    // RegExp's legacy statics (RegExp.input, $1, lastMatch…) hold the realm's last match, another run's
    // data: a match of nothing clears them as each run starts and ends.
    clearMatch: () => void /(?:)/.exec(""),
    createNamespace: () => Object.create(base),
    enter(call) {
      const outer = current;
      current = call;
      return outer;
    },
    expire: (call) => Call.expire(call),
    createCall: (deadline, task, cell) => new Call(deadline, task, cell),
  });
}`;

/** Creates a realm for the cells of one loaded project. */
export function createCellRealm(options: CellRealmOptions): CellRealm {
  // A regular expression that backtracks without end would hold the thread where no deadline check runs:
  // V8 then runs it again in its linear-time engine (not for lookarounds and backreferences, which it
  // cannot run). A flag of the process, set again for each realm: setting it twice changes nothing.
  setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");
  const context = createContext(Object.create(null), {
    name: "bass cells",
    codeGeneration: { strings: false, wasm: false },
  });
  const natives = options.natives ?? {};
  const made = new Map<string, unknown>();
  const native = (name: string): unknown => {
    if (!made.has(name)) {
      const library = natives[name] as NativeLibrary;
      const factory = runInContext(library.source(), context, { filename: `bass:${name}` }) as (
        ...uses: unknown[]
      ) => unknown;
      const value = factory(...(library.uses ?? []).map(native));
      realm.harden(value);
      for (const prototype of library.textPrototypes?.(value) ?? []) recordAsText(prototype);
      made.set(name, value);
    }
    return made.get(name);
  };
  // Plain data from bass comes in through bass's side of the copy (see copyFromBass), once the realm is made.
  let fromBass = (value: unknown): unknown => value;
  const realm = (runInContext(bootstrap, context) as (host: object) => RealmSide)({
    adopt: (value: unknown) => fromBass(value),
    now: () => performance.now(),
    heapOver: (call: { heapCeiling: number | undefined }) => heapOver(call, options.cellMemoryMb),
    objectPrototype: Object.prototype,
    isDate,
    isMap,
    isSet,
    encode: (text: string) => new TextEncoder().encode(text),
    decode: (bytes: Uint8Array, label: string) => new TextDecoder(label).decode(bytes),
    atob: (text: string) => atob(text),
    btoa: (text: string) => btoa(text),
    structuredClone: (value: unknown) => structuredClone(value),
    errorName: (error: unknown) => (isNativeError(error) ? error.name : "Error"),
    errorCode: (error: unknown) =>
      isBassError(error) && runFailureCodes.has(error.code) ? error.code : undefined,
    isPromise,
    errorMessage,
    hold: (mark: CellMark, released: () => void) => options.engine.marks.holdUntilIdle(mark, released),
    specialNames: [...options.specialNames],
    special: options.special,
    nativeNames: Object.keys(natives),
    native,
  });
  fromBass = copyFromBass(realm);
  return {
    engine: options.engine,
    cellMemoryMb: options.cellMemoryMb,
    compile(code, form, isAsync, filename) {
      // The cell runs in a function of its own, called with no `this` and no arguments: the engine's call
      // object and namespace are parameters of the outer one only, never the cell's `arguments`.
      const value = form === "expression" ? `return (${code}\n);` : `${code}\n`;
      const inner = isAsync ? "async function ()" : "function ()";
      const body = `"use strict";\nreturn ${inner} {${value}}.call(undefined);`;
      return compileFunction(body, ["__ns", "__c"], { parsingContext: context, filename }) as RealmCell;
    },
    createCall: (deadline, task, cell) => realm.createCall(deadline, task, cell),
    readValues(call, work) {
      const outer = realm.enter(call);
      try {
        return options.engine.marks.within(call.mark, work);
      } finally {
        realm.enter(outer);
      }
    },
    expire: (call) => realm.expire(call),
    adopt: (value) => fromBass(value) as typeof value,
    harden: (value) => realm.harden(value),
    createNamespace: () => realm.createNamespace(),
    clearMatch: () => realm.clearMatch(),
    enter: (call) => realm.enter(call),
  };
}

interface RealmSide {
  adopt<T>(value: T, depth?: number): T;
  object(): Record<string, unknown>;
  array(length: number): unknown[];
  own(target: object, name: string, value: unknown): unknown;
  /** The names the realm's Object.prototype holds: an object of the realm takes them by definition. */
  prototypeNames: readonly string[];
  harden(value: unknown): void;
  createCall(deadline: number, task: number, cell: number): CellCall;
  expire(call: CellCall): void;
  createNamespace(): Namespace;
  clearMatch(): void;
  enter(call: CellCall | undefined): CellCall | undefined;
}

/**
 * Whether a cell's call has grown the thread's memory by more than `memoryMb` since its first clock check
 * (which notes where it was, so that a cell without loops costs nothing). Past it, garbage is collected
 * first: only what the thread still holds fails the cell.
 */
function heapOver(call: { heapCeiling: number | undefined }, memoryMb: number | undefined): boolean {
  if (memoryMb === undefined) return false;
  const held = heapBytes();
  if (call.heapCeiling === undefined) {
    call.heapCeiling = held + memoryMb * 2 ** 20;
    return false;
  }
  if (held <= call.heapCeiling) return false;
  collectGarbage();
  return heapBytes() > call.heapCeiling;
}

/** Nesting past this is cut (null), as the realm's own copy does. */
const deepestCopy = 200;

/**
 * The copy of bass's plain data into the realm, walked on bass's side: reading another realm's objects
 * (their prototype, their keys) from inside the cells' realm takes V8's slow path, and plain objects and
 * arrays are most of what bass hands in (bench/tricks.js, "plain data copied from bass's side"). Anything
 * else (the realm's own values, byte strings, dates, maps, sets, functions) the realm adopts itself.
 */
function copyFromBass(side: RealmSide): (value: unknown) => unknown {
  const prototypeNames = new Set(side.prototypeNames);
  const copyMap = (value: Record<string, unknown>, depth: number) => {
    const copied = side.object();
    for (const name of Object.keys(value)) {
      const item = copy(value[name], depth + 1);
      // A name the realm's frozen Object.prototype holds (constructor, __proto__) cannot be assigned.
      if (prototypeNames.has(name)) side.own(copied, name, item);
      else copied[name] = item;
    }
    return copied;
  };
  const copyList = (items: unknown[], depth: number) => {
    const copied = side.array(items.length);
    for (let index = 0; index < items.length; index++) copied[index] = copy(items[index], depth + 1);
    return copied;
  };
  const copy = (value: unknown, depth: number): unknown => {
    if (typeof value === "function") return side.adopt(value, depth);
    if (value === null || typeof value !== "object") return value;
    if (depth > deepestCopy) return null;
    const prototype = Object.getPrototypeOf(value);
    if (prototype === Object.prototype) return copyMap(value as Record<string, unknown>, depth);
    if (prototype === Array.prototype) return copyList(value as unknown[], depth);
    return side.adopt(value, depth);
  };
  return (value) => copy(value, 0);
}
