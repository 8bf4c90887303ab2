import { describe, expect, it } from "vitest";
import type { ValueMappingSet } from "../../src/definition/types.js";
import { createValueMapper } from "../../src/engine/value-mapping.js";

const status: ValueMappingSet = {
  name: "status",
  mappings: [
    { from: 1, to: "active" },
    { from: "B", to: "blocked" },
    { from: true, to: "yes" },
    { from: "b", to: "second b" },
  ],
};

describe("createValueMapper", () => {
  it.each<[ValueMappingSet, unknown, unknown]>([
    [status, 1, "active"],
    [status, "1", "active"],
    [status, "B", "blocked"],
    [status, "b", "blocked"],
    [status, true, "yes"],
    [status, "TRUE", "yes"],
    [status, 2, 2],
    [status, null, null],
    [status, undefined, undefined],
    [status, " 1", " 1"],
    [{ ...status, case_sensitive: true }, "b", "second b"],
    [{ ...status, case_sensitive: true }, "B", "blocked"],
    [{ ...status, case_sensitive: true }, "TRUE", "TRUE"],
    [{ ...status, case_sensitive: false }, "b", "blocked"],
    [{ ...status, default_to_value: "unknown" }, 3, "unknown"],
    [{ ...status, default_to_value: "unknown" }, 1, "active"],
    [{ ...status, default_to_value: "" }, 3, ""],
    [{ name: "nulls", mappings: [{ from: "null", to: "none" }] }, null, "none"],
    [{ name: "empty", mappings: [] }, "x", "x"],
  ])("maps %j: %j", (set, value, expected) => {
    expect(createValueMapper(set)(value)).toBe(expected);
  });

  it("keeps an unmatched object as it is", () => {
    const value = { a: 1 };
    expect(createValueMapper(status)(value)).toBe(value);
  });
});

describe("createValueMapper", () => {
  it("reads the set once, when it is created", () => {
    const set: ValueMappingSet = { name: "s", mappings: [{ from: "a", to: "A" }] };
    const map = createValueMapper(set);
    set.mappings.push({ from: "b", to: "B" });
    expect(map("a")).toBe("A");
    expect(map("b")).toBe("b");
  });
});
