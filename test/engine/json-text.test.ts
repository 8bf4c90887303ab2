import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonTooLong, jsonText } from "../../src/engine/json-text.js";

describe("jsonText", () => {
  it("writes plain data as JSON.stringify does", () => {
    const value = { a: [1, "x", null], b: { c: true } };
    expect(jsonText(value)).toBe(JSON.stringify(value));
  });

  it("writes a bigint as its exact digits, and a text that looks like one as text", () => {
    expect(jsonText({ n: 2n ** 64n, list: [-(2n ** 70n)], text: "18446744073709551616" })).toBe(
      '{"n":18446744073709551616,"list":[-1180591620717411303424],"text":"18446744073709551616"}',
    );
    expect(jsonText({ n: 2n ** 64n }, 1000)).toBe('{"n":18446744073709551616}');
  });

  it("still refuses what JSON cannot hold", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => jsonText({ n: 1n, cycle })).toThrow(TypeError);
  });

  it("with a limit, writes what fits as JSON.stringify does, and refuses only what is longer", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 400 }), (value, maxBytes) => {
        const text = JSON.stringify(value);
        try {
          expect(jsonText(value, maxBytes)).toBe(text);
        } catch (error) {
          expect(error).toBeInstanceOf(JsonTooLong);
          expect(Buffer.byteLength(text)).toBeGreaterThan(maxBytes);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("stops writing as soon as what it wrote passes the limit", () => {
    let read = 0;
    const items = Array.from({ length: 1000 }, () => ({
      get text() {
        read++;
        return "x".repeat(1000);
      },
    }));
    expect(() => jsonText(items, 10_000)).toThrow(JsonTooLong);
    expect(read).toBeLessThanOrEqual(11);
    expect(() =>
      jsonText(
        Array.from({ length: 10_000 }, (_, at) => at + 0.5),
        10_000,
      ),
    ).toThrow(JsonTooLong);
  });
});
