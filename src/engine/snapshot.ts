import { isDate, isMap, isSet, isUint8Array } from "node:util/types";
import { setOwn } from "../objects.js";
import type { BytesPreview } from "./types.js";

/** Containers nested deeper than this are recorded as "[Too deep]": well past the 64 levels serve accepts. */
const maxDepth = 128;
const previewLength = 256;
/** A UTF-16 code unit takes at most 4 bytes, so this many bytes always hold the preview's characters. */
const previewBytes = previewLength * 4;
const utf8 = new TextDecoder();

/** Prototypes of values recorded as their text (a decimal of the cells' realm): frozen, and their `toString` with them. */
const textPrototypes = { of: new WeakSet<object>(), any: false };

/** Records the values of `prototype` as their text, as their own `toJSON` would. */
export function recordAsText(prototype: object): void {
  textPrototypes.of.add(prototype);
  textPrototypes.any = true;
}

/**
 * A JSON-safe deep copy of a value for the run history, so later changes to the live value do not reach
 * it. It follows `JSON.stringify` (undefined, functions and symbols dropped from objects and null in
 * arrays, NaN and Infinity null) and also records byte strings as `bytesPreview`, Dates as ISO text,
 * bigints as text, Maps as objects, Sets as arrays, a cycle as "[Circular]" and nesting beyond 128
 * levels as "[Too deep]".
 */
export function snapshot(value: unknown): unknown {
  return copy(value, 1, []);
}

/** A copy of its own that may be changed in place (an object literal, a value to mask); a primitive is its own copy. */
export function copyOf<T>(value: T): T {
  return value !== null && typeof value === "object" ? structuredClone(value) : value;
}

/** A byte string as history records it (docs/architecture.md#the-run-history-basshistory): its length and its first 256 characters as UTF-8 text. */
export function bytesPreview(bytes: Uint8Array): BytesPreview {
  let preview = utf8.decode(bytes.subarray(0, previewBytes)).slice(0, previewLength);
  const lastCode = preview.charCodeAt(preview.length - 1);
  // Half of a surrogate pair would make the preview invalid Unicode.
  if (lastCode >= 0xd800 && lastCode <= 0xdbff) preview = preview.slice(0, -1);
  return { bytes: bytes.length, preview };
}

function copy(value: unknown, depth: number, ancestors: object[]): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // -0 becomes 0 as in JSON.
      return Number.isFinite(value) ? value + 0 : null;
    case "bigint":
      return String(value);
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (depth > maxDepth) return "[Too deep]";
  if (ancestors.includes(object)) return "[Circular]";
  // Checks that hold across realms: cells make their values in a realm of their own.
  if (isUint8Array(object)) return bytesPreview(object);
  if (isDate(object)) return Number.isNaN(object.getTime()) ? null : object.toISOString();
  if (textPrototypes.any && textPrototypes.of.has(Object.getPrototypeOf(object))) return String(object);
  ancestors.push(object);
  const copied = copyContainer(object, depth + 1, ancestors);
  ancestors.pop();
  return copied;
}

function copyContainer(object: object, depth: number, ancestors: object[]): unknown {
  if (Array.isArray(object)) return copyItems(object, depth, ancestors);
  if (isSet(object)) return copyItems([...object], depth, ancestors);
  const copied: Record<string, unknown> = {};
  if (isMap(object)) {
    for (const [key, item] of object) copyEntry(copied, String(key), item, depth, ancestors);
  } else {
    const keys = Object.keys(object);
    for (let at = 0; at < keys.length; at++) {
      const key = keys[at] as string;
      copyEntry(copied, key, (object as Record<string, unknown>)[key], depth, ancestors);
    }
  }
  return copied;
}

function copyItems(items: readonly unknown[], depth: number, ancestors: object[]): unknown[] {
  const copied: unknown[] = [];
  for (let at = 0; at < items.length; at++) copied.push(copy(items[at], depth, ancestors) ?? null);
  return copied;
}

function copyEntry(
  target: Record<string, unknown>,
  key: string,
  value: unknown,
  depth: number,
  ancestors: object[],
): void {
  const copied = copy(value, depth, ancestors);
  if (copied !== undefined) setOwn(target, key, copied);
}
