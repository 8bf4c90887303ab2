import { describe, expect, it } from "vitest";
import { jsonText } from "../../src/engine/json-text.js";

describe("jsonText", () => {
  it("writes plain data as JSON.stringify does", () => {
    const value = { a: [1, "x", null], b: { c: true } };
    expect(jsonText(value)).toBe(JSON.stringify(value));
  });

  it("writes a bigint as its exact digits, and a text that looks like one as text", () => {
    expect(jsonText({ n: 2n ** 64n, list: [-(2n ** 70n)], text: "18446744073709551616" })).toBe(
      '{"n":18446744073709551616,"list":[-1180591620717411303424],"text":"18446744073709551616"}',
    );
  });

  it("still refuses what JSON cannot hold", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => jsonText({ n: 1n, cycle })).toThrow(TypeError);
  });
});
