import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesPreview, snapshot } from "../../src/engine/snapshot.js";

/** Arrays nested `levels` deep around `inner`. */
function nest(levels: number, inner: unknown): unknown {
  let value = inner;
  for (let level = 0; level < levels; level++) value = [value];
  return value;
}

/** Every object inside a JSON-like value, the value itself included. */
function objectsOf(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value === "object" && value !== null) {
    into.add(value);
    for (const item of Object.values(value)) objectsOf(item, into);
  }
  return into;
}

describe("snapshot", () => {
  it.each<[string, unknown, unknown]>([
    ["a string", "text", "text"],
    ["a number", 1.5, 1.5],
    ["a boolean", false, false],
    ["null", null, null],
    ["NaN", Number.NaN, null],
    ["Infinity", Number.POSITIVE_INFINITY, null],
    ["a bigint", 12345678901234567890n, "12345678901234567890"],
    ["undefined", undefined, undefined],
    ["a function", () => 1, undefined],
    ["a date", new Date(Date.UTC(2024, 0, 2, 3, 4, 5)), "2024-01-02T03:04:05.000Z"],
    ["an invalid date", new Date(Number.NaN), null],
    ["an object", { a: 1, b: { c: [1, "x"] } }, { a: 1, b: { c: [1, "x"] } }],
    ["undefined and functions in an object", { a: undefined, f: () => 1, s: Symbol("s"), b: 1 }, { b: 1 }],
    ["undefined and functions in an array", [undefined, () => 1, Symbol("s"), 1], [null, null, null, 1]],
    ["NaN in an array", [Number.NaN, Number.NEGATIVE_INFINITY], [null, null]],
    ["a sparse array", Object.assign([], { 0: 1, 2: 3 }), [1, null, 3]],
    [
      "a map",
      new Map<unknown, unknown>([
        ["a", 1],
        [2, { b: undefined }],
      ]),
      { a: 1, 2: {} },
    ],
    ["a set", new Set([1, "a", undefined]), [1, "a", null]],
    [
      "a class instance",
      new (class Point {
        x = 1;
        y = 2;
      })(),
      { x: 1, y: 2 },
    ],
    ["a prototype-less object", Object.assign(Object.create(null), { a: 1 }), { a: 1 }],
    ["a date in an object", { at: new Date(0) }, { at: "1970-01-01T00:00:00.000Z" }],
    ["bytes", new TextEncoder().encode("héllo"), { bytes: 6, preview: "héllo" }],
    ["a Buffer in an object", { body: Buffer.from("abc") }, { body: { bytes: 3, preview: "abc" } }],
  ])("copies %s", (_, value, expected) => {
    expect(snapshot(value)).toEqual(expected);
  });

  it("turns -0 into 0, as JSON does", () => {
    expect(Object.is(snapshot(-0), 0)).toBe(true);
  });

  it("records a cycle as [Circular] and copies a shared object twice", () => {
    const shared = { s: 1 };
    const cyclic: Record<string, unknown> = { a: shared, b: shared, list: [] };
    cyclic.self = cyclic;
    (cyclic.list as unknown[]).push(cyclic, shared);
    expect(snapshot(cyclic)).toEqual({
      a: { s: 1 },
      b: { s: 1 },
      list: ["[Circular]", { s: 1 }],
      self: "[Circular]",
    });
  });

  it("keeps 128 levels and records deeper ones as [Too deep]", () => {
    expect(snapshot(nest(128, 1))).toEqual(nest(128, 1));
    expect(snapshot(nest(129, 1))).toEqual(nest(128, "[Too deep]"));
    expect(snapshot(nest(128, { a: 1 }))).toEqual(nest(128, "[Too deep]"));
  });

  it("keeps an own __proto__ key as an own key", () => {
    const copied = snapshot(JSON.parse('{"__proto__":{"polluted":true},"a":1}')) as object;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(["__proto__", "a"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("is not changed by later changes to the value", () => {
    const live = { a: { b: [1] }, bytes: new Uint8Array([104, 105]) };
    const copied = snapshot(live);
    live.a.b.push(2);
    live.bytes[0] = 72;
    expect(copied).toEqual({ a: { b: [1] }, bytes: { bytes: 2, preview: "hi" } });
  });

  it("equals a JSON round trip of any JSON value and shares no object with it", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copied = snapshot(value);
        expect(copied).toEqual(JSON.parse(JSON.stringify(value)));
        const originals = objectsOf(value);
        for (const object of objectsOf(copied)) expect(originals.has(object)).toBe(false);
      }),
    );
  });
});

describe("bytesPreview", () => {
  it.each<[string, Uint8Array, number, string]>([
    ["empty bytes", new Uint8Array(), 0, ""],
    ["short text", new TextEncoder().encode("abc"), 3, "abc"],
    ["long text", new TextEncoder().encode("a".repeat(1000)), 1000, "a".repeat(256)],
    ["three-byte characters", new TextEncoder().encode("€".repeat(400)), 1200, "€".repeat(256)],
    ["a surrogate pair at the cut", new TextEncoder().encode(`${"a".repeat(255)}😀b`), 260, "a".repeat(255)],
    ["invalid UTF-8", new Uint8Array([0xff, 0x61]), 2, "\ufffda"],
  ])("previews %s", (_, bytes, length, preview) => {
    expect(bytesPreview(bytes)).toEqual({ bytes: length, preview });
  });
});
