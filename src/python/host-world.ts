/**
 * What a thread that runs Python cells does to its own JavaScript world. Pyodide lives in the thread's
 * realm, and every JavaScript object it hands Python (a list made a JavaScript array, a function of bass
 * it calls) is of that realm: from any of them `.constructor.constructor` is the realm's Function, which
 * makes code from a string that reaches `process`. So the thread's function constructors stop making
 * code, and the built-ins a cell could reach are frozen in a worker thread (`freezeReachableBuiltins`), or
 * checked after a run's cells and put back where a cell changed them (`guardBuiltins`).
 */
import { runInThisContext } from "node:vm";
import { tameSource } from "../tame.js";

/** The constructors of the four kinds of function, each reached as its prototype's `constructor`. */
function functionPrototypes(): object[] {
  return [
    Function.prototype,
    Object.getPrototypeOf(async () => {}),
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf(async function* () {}),
  ];
}

/**
 * Gives each kind of function a `constructor` that refuses to make code, named as the real one. bass's code
 * and its libraries name `Function` where they need it; only a path through `.constructor` changes. Once
 * per thread: a locked constructor is no longer writable.
 */
export function lockFunctionConstructors(): void {
  if (!Object.getOwnPropertyDescriptor(Function.prototype, "constructor")?.writable) return;
  for (const prototype of functionPrototypes()) {
    const real = (prototype as { constructor: { name: string } }).constructor;
    const refuse = () => {
      throw new EvalError("code cannot be made from a string here");
    };
    Object.defineProperty(refuse, "name", { value: real.name });
    Object.defineProperty(prototype, "constructor", { value: refuse, writable: false, configurable: false });
  }
}

/** The built-ins a Python cell can reach from a JavaScript value it holds: constructors and prototypes. */
function reachableBuiltins(): object[] {
  const constructors: object[] = [
    Object,
    Function,
    Array,
    Error,
    TypeError,
    RangeError,
    ReferenceError,
    SyntaxError,
    EvalError,
    URIError,
    AggregateError,
    Promise,
    Map,
    Set,
    WeakMap,
    WeakSet,
    Date,
    RegExp,
    String,
    Number,
    Boolean,
    Symbol,
    BigInt,
    ArrayBuffer,
    DataView,
    Uint8Array,
    Object.getPrototypeOf(Uint8Array),
  ];
  const iterators = [[].values(), new Map().values(), new Set().values(), ""[Symbol.iterator]()];
  const objects = new Set<object>();
  for (const made of constructors) {
    objects.add(made);
    objects.add((made as { prototype: object }).prototype);
  }
  for (const iterator of iterators)
    for (
      let prototype = Object.getPrototypeOf(iterator);
      prototype;
      prototype = Object.getPrototypeOf(prototype)
    )
      objects.add(prototype);
  for (const prototype of functionPrototypes()) objects.add(prototype);
  return [...objects];
}

/** Whether the built-ins are as they were, were put back, or were changed in a way that cannot be undone. */
export type BuiltinsState = "intact" | "restored" | "tainted";

export interface BuiltinsGuard {
  /** Puts back what changed in the built-ins since the guard was made. */
  check(): BuiltinsState;
}

/**
 * Freezes the built-ins a Python cell can reach, after their function constructors are locked: a worker
 * thread that runs Python cells does so once, and no cell can change them, so only what stays unfrozen
 * is checked after its cells. The usual names stay assignable on the objects that inherit them.
 */
export function freezeReachableBuiltins(): void {
  const tame = runInThisContext(tameSource) as (target: object) => void;
  lockFunctionConstructors();
  for (const target of reachableBuiltins()) {
    // Error's stackTraceLimit is set by Pyodide and undici as they make errors, and V8 reads it as a data
    // property: Error stays unfrozen, and is checked after each task instead (see guardBuiltins).
    if (target === Error || Object.isFrozen(target)) continue;
    tame(target);
    Object.freeze(target);
  }
}

/** Remembers the reachable built-ins' own properties, to check them after each cell; frozen ones need not be. */
export function guardBuiltins(): BuiltinsGuard {
  const kept = reachableBuiltins()
    .filter((target) => !Object.isFrozen(target))
    .map((target) => ({
      target,
      extensible: Object.isExtensible(target),
      properties: Object.getOwnPropertyDescriptors(target) as Record<PropertyKey, PropertyDescriptor>,
      keys: Reflect.ownKeys(target),
    }));
  return {
    check() {
      let state: BuiltinsState = "intact";
      for (const { target, extensible, properties, keys } of kept) {
        const now = Reflect.ownKeys(target);
        const changed =
          Object.isExtensible(target) !== extensible ||
          now.length !== keys.length ||
          keys.some((key) => !sameProperty(Reflect.getOwnPropertyDescriptor(target, key), properties[key]));
        if (!changed) continue;
        // A thread whose built-ins cannot be put back is replaced: nothing more of it matters.
        if (!putBack(target, extensible, properties, now)) return "tainted";
        state = "restored";
      }
      return state;
    },
  };
}

function sameProperty(now: PropertyDescriptor | undefined, then: PropertyDescriptor | undefined): boolean {
  if (!now || !then) return now === then;
  return (
    now.value === then.value &&
    now.get === then.get &&
    now.set === then.set &&
    now.writable === then.writable &&
    now.enumerable === then.enumerable &&
    now.configurable === then.configurable
  );
}

/** Deletes what was added and defines again what was changed; false where the object no longer lets it. */
function putBack(
  target: object,
  extensible: boolean,
  properties: Record<PropertyKey, PropertyDescriptor>,
  now: readonly PropertyKey[],
): boolean {
  if (Object.isExtensible(target) !== extensible) return false;
  for (const key of now) if (!(key in properties) && !Reflect.deleteProperty(target, key)) return false;
  for (const key of Reflect.ownKeys(properties)) {
    const then = properties[key as string] as PropertyDescriptor;
    if (sameProperty(Reflect.getOwnPropertyDescriptor(target, key), then)) continue;
    if (!Reflect.defineProperty(target, key, then)) return false;
  }
  return true;
}
