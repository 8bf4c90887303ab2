import { describe, expect, it } from "vitest";
import type { ValueType } from "../../src/definition/types.js";
import { castValue, toDecimalString } from "../../src/engine/cast.js";

describe("castValue", () => {
  it.each<[ValueType, unknown, unknown]>([
    ["string", "abc", "abc"],
    ["string", "", ""],
    ["string", 12.5, "12.5"],
    ["string", 10n, "10"],
    ["string", false, "false"],
    ["integer", 42, 42],
    ["integer", -7, -7],
    ["integer", "42", 42],
    ["integer", " +12 ", 12],
    ["integer", "-0012", -12],
    ["integer", "9007199254740991", 9007199254740991],
    ["number", 1.5, 1.5],
    ["number", "1.5", 1.5],
    ["number", " -2e3 ", -2000],
    ["number", "7", 7],
    ["decimal", "12.30", "12.30"],
    ["decimal", 12.3, "12.3"],
    ["decimal", 5n, "5"],
    ["boolean", true, true],
    ["boolean", false, false],
    ["boolean", " TRUE ", true],
    ["boolean", "False", false],
    ["boolean", 1, true],
    ["boolean", 0, false],
    ["boolean", "1", true],
    ["boolean", "0", false],
    ["object", { a: 1 }, { a: 1 }],
    ["object", '{"a":[1]}', { a: [1] }],
    ["object", Object.assign(Object.create(null), { a: 1 }), { a: 1 }],
    ["array", [1, "a"], [1, "a"]],
    ["array", "[1,2]", [1, 2]],
    ["array", "[]", []],
  ])("casts to %s: %o", (type, value, expected) => {
    expect(castValue(value, type)).toEqual({ ok: true, value: expected });
  });

  it.each<[ValueType, unknown]>([
    ["string", { a: 1 }],
    ["string", [1]],
    ["string", Number.NaN],
    ["string", Number.POSITIVE_INFINITY],
    ["string", Symbol("s")],
    ["integer", 1.5],
    ["integer", "1.5"],
    ["integer", "abc"],
    ["integer", ""],
    ["integer", "  "],
    ["integer", true],
    ["integer", "1e3"],
    ["integer", "0x10"],
    ["integer", 2 ** 53],
    ["integer", "9007199254740993"],
    ["integer", 5n],
    ["number", Number.NaN],
    ["number", Number.NEGATIVE_INFINITY],
    ["number", ""],
    ["number", "   "],
    ["number", "abc"],
    ["number", "Infinity"],
    ["number", true],
    ["number", [1]],
    ["decimal", "abc"],
    ["decimal", "."],
    ["decimal", "1.2.3"],
    ["decimal", "1e"],
    ["decimal", true],
    ["decimal", Number.NaN],
    ["decimal", { a: 1 }],
    ["decimal", "1e1001"],
    ["boolean", "yes"],
    ["boolean", 2],
    ["boolean", ""],
    ["boolean", "01"],
    ["object", [1]],
    ["object", "[1]"],
    ["object", "{bad json"],
    ["object", "null"],
    ["object", 1],
    ["object", new Date(0)],
    ["object", new Map()],
    ["array", { 0: "a" }],
    ["array", '{"a":1}'],
    ["array", "not json"],
    ["array", 1],
  ])("refuses to cast to %s: %o", (type, value) => {
    expect(castValue(value, type)).toEqual({ ok: false });
  });

  it.each<ValueType>(["string", "integer", "number", "decimal", "boolean", "object", "array"])(
    "passes null and undefined to %s uncast",
    (type) => {
      expect(castValue(null, type)).toEqual({ ok: true, value: null });
      expect(castValue(undefined, type)).toEqual({ ok: true, value: undefined });
    },
  );

  it("keeps an object or array it was given, without copying", () => {
    const object = { a: 1 };
    const array = [1];
    expect(castValue(object, "object")).toEqual({ ok: true, value: object });
    expect((castValue(object, "object") as { value: unknown }).value).toBe(object);
    expect((castValue(array, "array") as { value: unknown }).value).toBe(array);
  });

  it("parses a __proto__ key of JSON text as an own key", () => {
    const cast = castValue('{"__proto__":{"polluted":true}}', "object") as { ok: true; value: object };
    expect(Object.hasOwn(cast.value, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(cast.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("toDecimalString", () => {
  it.each<[unknown, string]>([
    ["12.30", "12.30"],
    ["1.", "1"],
    [".5", "0.5"],
    ["-.5", "-0.5"],
    ["+5", "5"],
    [" 7 ", "7"],
    ["007.50", "7.50"],
    ["000", "0"],
    ["00.5", "0.5"],
    ["-0", "0"],
    ["-0.00", "0.00"],
    ["+0.0", "0.0"],
    ["1.5e3", "1500"],
    ["1.50e1", "15.0"],
    ["1.23E-5", "0.0000123"],
    ["123e-1", "12.3"],
    ["123e-3", "0.123"],
    ["0.05e1", "0.5"],
    ["-1.5e+2", "-150"],
    ["12.30e0", "12.30"],
    ["-0e5", "0"],
    ["123456789012345678901234567890.123456789", "123456789012345678901234567890.123456789"],
    [0, "0"],
    [-0, "0"],
    [12.3, "12.3"],
    [-0.5, "-0.5"],
    [1e21, "1000000000000000000000"],
    [1e-7, "0.0000001"],
    [-1.5e-7, "-0.00000015"],
    [0.1 + 0.2, "0.30000000000000004"],
    [Number.MAX_SAFE_INTEGER, "9007199254740991"],
    [123456789012345678901234567890n, "123456789012345678901234567890"],
    [-5n, "-5"],
  ])("writes %o as %s", (value, expected) => {
    expect(toDecimalString(value)).toBe(expected);
  });

  it.each<unknown>([
    "",
    " ",
    "-",
    "e5",
    "1e",
    "1.2.3",
    "1,5",
    "0x10",
    "Infinity",
    "1e-1001",
    Number.NaN,
    true,
    null,
  ])("has no decimal for %o", (value) => {
    expect(toDecimalString(value)).toBeUndefined();
  });
});
