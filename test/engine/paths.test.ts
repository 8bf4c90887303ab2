import { describe, expect, it } from "vitest";
import { parseFieldPath } from "../../src/definition/field-path.js";
import { findMatches, type MatchSegment, type ResolvedSegment, writePath } from "../../src/engine/paths.js";
import { setOwn } from "../../src/objects.js";

/** The segments of a path without expressions, parsed as definitions write them. */
function segments(path: string): MatchSegment[] {
  const parsed = parseFieldPath(path);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.segments as MatchSegment[];
}

const resolved = (path: string) => segments(path) as ResolvedSegment[];

describe("setOwn", () => {
  it("assigns an ordinary key", () => {
    const target: Record<string, unknown> = {};
    setOwn(target, "a", 1);
    setOwn(target, "constructor", 2);
    expect(target).toEqual({ a: 1, constructor: 2 });
  });

  it("defines __proto__ as an own enumerable key and leaves the prototype alone", () => {
    const target = {};
    setOwn(target, "__proto__", { polluted: true });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(Object.keys(target)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(target, "__proto__")?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("sets an array element by index", () => {
    const target = ["a"];
    setOwn(target, 1, "b");
    expect(target).toEqual(["a", "b"]);
  });
});

describe("writePath", () => {
  it.each<[Record<string, unknown>, string, unknown, unknown]>([
    [{}, "a", 1, { a: 1 }],
    [{}, "a.b.c", 1, { a: { b: { c: 1 } } }],
    [{}, "a[0]", 1, { a: [1] }],
    [{}, "a[1].b", 1, { a: [undefined, { b: 1 }] }],
    [{}, "a[0][0]", 1, { a: [[1]] }],
    [{}, 'a["x.y"]', 1, { a: { "x.y": 1 } }],
    [{ a: { b: 1 } }, "a.c", 2, { a: { b: 1, c: 2 } }],
    [{ a: { b: 1 } }, "a.b", 2, { a: { b: 2 } }],
    [{ a: [1, 2] }, "a[1]", 3, { a: [1, 3] }],
    [{ a: "text" }, "a.b", 1, { a: { b: 1 } }],
    [{ a: 5 }, "a[0]", 1, { a: [1] }],
    [{ a: null }, "a.b", 1, { a: { b: 1 } }],
    [{ a: { b: 1 } }, "a[0]", 1, { a: { b: 1, 0: 1 } }],
    [{}, "a", null, { a: null }],
  ])("writes into %j at %s", (root, path, value, expected) => {
    writePath(root, resolved(path), value);
    expect(root).toEqual(expected);
  });

  it("builds an array of objects item by item (SPEC §4.5)", () => {
    const root: Record<string, unknown> = {};
    for (const [fidx, fitem] of ["a", "b"].entries()) {
      writePath(
        root,
        [
          { kind: "key", name: "fm_body" },
          { kind: "index", index: fidx },
          { kind: "key", name: "test_key" },
        ],
        fitem,
      );
    }
    expect(root).toEqual({ fm_body: [{ test_key: "a" }, { test_key: "b" }] });
    expect(Array.isArray(root.fm_body)).toBe(true);
  });

  it.each(["__proto__.polluted", "constructor.prototype.polluted", "a.__proto__.polluted"])(
    "never reaches a prototype through %s",
    (path) => {
      const root: Record<string, unknown> = { a: {} };
      writePath(root, resolved(path), true);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.getPrototypeOf(root)).toBe(Object.prototype);
      expect(Object.getPrototypeOf(root.a)).toBe(Object.prototype);
    },
  );

  it("creates own containers for __proto__ and constructor", () => {
    const root: Record<string, unknown> = {};
    writePath(root, resolved("__proto__.x"), 1);
    writePath(root, resolved("constructor.name"), "n");
    expect(Object.getOwnPropertyDescriptor(root, "__proto__")?.value).toEqual({ x: 1 });
    expect(Object.hasOwn(root, "constructor")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(root, "constructor")?.value).toEqual({ name: "n" });
    expect(Object.name).toBe("Object");
  });

  it("does nothing for an empty path", () => {
    const root = { a: 1 };
    writePath(root, [], 2);
    expect(root).toEqual({ a: 1 });
  });
});

describe("findMatches", () => {
  const root = {
    tax_id: "123",
    cards: [{ pan: "4111", cvv: "1" }, { pan: "5500" }, "loose"],
    accounts: { main: { iban: "DE1" }, savings: { iban: "DE2" } },
    nested: [[{ v: 1 }], [{ v: 2 }, { v: 3 }]],
  };

  it.each<[string, unknown[]]>([
    ["tax_id", ["123"]],
    ["cards[*].pan", ["4111", "5500"]],
    ["cards[*].cvv", ["1"]],
    ["cards[0].pan", ["4111"]],
    ["cards[*]", [root.cards[0], root.cards[1], "loose"]],
    ["accounts[*].iban", ["DE1", "DE2"]],
    ["nested[*][*].v", [1, 2, 3]],
    ["missing", []],
    ["missing[*].x", []],
    ["tax_id[*]", []],
    ["cards.toString", []],
    ["accounts.__proto__", []],
  ])("finds %s", (path, values) => {
    expect(findMatches(root, segments(path)).map((match) => match.value)).toEqual(values);
  });

  it("gives the parent and key of each place, so the caller can replace it", () => {
    const data = { cards: [{ pan: "4111" }, { pan: "5500" }] };
    for (const { parent, key } of findMatches(data, segments("cards[*].pan")))
      setOwn(parent, key, "XXXXXXXXXXXX");
    expect(data).toEqual({ cards: [{ pan: "XXXXXXXXXXXX" }, { pan: "XXXXXXXXXXXX" }] });
    expect(findMatches(data, segments("cards[*]")).map(({ key }) => key)).toEqual([0, 1]);
  });

  it("skips the holes of a sparse array and finds own __proto__ keys", () => {
    const sparse: number[] = [];
    sparse[0] = 1;
    sparse[2] = 3;
    expect(findMatches({ a: sparse }, segments("a[*]")).map(({ key }) => key)).toEqual([0, 2]);
    const own = JSON.parse('{"__proto__":{"x":1}}') as object;
    expect(findMatches(own, segments("__proto__.x")).map(({ value }) => value)).toEqual([1]);
  });
});
