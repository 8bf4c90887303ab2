import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/engine/types.js";
import { checkExpectations } from "../../src/testing/expectations.js";
import { isMatcher, markVolatile, matches } from "../../src/testing/matchers.js";

const recordWith = (payload: unknown): RunRecord => ({
  id: "01M8B8SBA5ZW827RWSMCB23K6N",
  integration: "a",
  status: "success",
  trigger: "test",
  started_at: "2026-11-26T00:00:00.000Z",
  ended_at: "2026-11-26T00:00:00.001Z",
  duration_ms: 1,
  labels: [],
  async: false,
  items: [
    { seq: 1, at: "2026-11-26T00:00:00.001Z", kind: "OUTPUT", data: { status: 201, headers: {}, payload } },
  ],
});

describe("matchers", () => {
  it("are objects of exactly one of $type, $match and $any", () => {
    expect(isMatcher({ $type: "string" })).toBe(true);
    expect(isMatcher({ $match: "^a" })).toBe(true);
    expect(isMatcher({ $any: true })).toBe(true);
    for (const value of [{ $type: "string", other: 1 }, { type: "string" }, ["$any"], null, "$any"])
      expect(isMatcher(value)).toBe(false);
  });

  it.each([
    [{ $type: "string" }, "TR00000018", true],
    [{ $type: "string" }, 18, false],
    [{ $type: "integer" }, 18, true],
    [{ $type: "integer" }, 1.5, false],
    [{ $type: "number" }, 18, true],
    [{ $type: "array" }, [], true],
    [{ $type: "object" }, [], false],
    [{ $type: "null" }, null, true],
    [{ $match: "^TR\\d{8}$" }, "TR00000018", true],
    [{ $match: "^TR\\d{8}$" }, "TX00000018", false],
    [{ $match: "1" }, 1, false],
    [{ $any: true }, null, true],
    [{ $any: true }, undefined, false],
  ] as const)("%j against %j: %s", (matcher, actual, expected) => {
    expect(matches(matcher, actual)).toBe(expected);
  });

  it("let a case expect what changes from run to run", () => {
    const expectations = {
      output: {
        payload: {
          transfer_id: { $match: "^TR\\d+$" },
          posted_at: { $type: "string" as const },
          amount: "1.00",
        },
      },
    };
    const record = recordWith({
      transfer_id: "TR00000042",
      posted_at: "2026-11-26T06:00:00Z",
      amount: "1.00",
    });
    expect(checkExpectations(expectations, record)).toEqual([]);
    const other = recordWith({ transfer_id: 42, posted_at: "x", amount: "1.00" });
    expect(checkExpectations(expectations, other)).toEqual([
      { path: "expect.output.payload.transfer_id", message: "expected a string matching /^TR\\d+$/, got 42" },
    ]);
  });
});

describe("markVolatile", () => {
  it("keeps what two runs answered alike and types what they did not", () => {
    const first = {
      status: 201,
      payload: { id: "P000042", status: "active", at: "2026-01-05", n: 1, list: [1, 2] },
    };
    const second = {
      status: 201,
      payload: { id: "P000043", status: "active", at: "2026-01-06", n: 1.5, list: [1] },
    };
    expect(markVolatile(first, second)).toEqual({
      status: 201,
      payload: {
        id: { $type: "string" },
        status: "active",
        at: { $type: "string" },
        n: { $type: "number" },
        list: { $type: "array" },
      },
    });
  });

  it("allows anything where the second run had no such value or another kind", () => {
    expect(markVolatile({ a: 1, b: "x" }, { b: null })).toEqual({ a: { $any: true }, b: { $any: true } });
  });
});
