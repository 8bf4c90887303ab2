import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runDefinition } from "../_helpers.js";

/** SPEC §2 calls call_for_each, include_for_each and apply_to_each "a cell giving an iterable": a string is one. */
describe("a string as the iterable of a loop (SPEC §2, §4.5, §4.6)", () => {
  it("include_for_each over a string binds each character as fitem", async () => {
    const result = await runDefinition(
      stringify({
        name: "a",
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            field_mappings: [{ field: "out[fidx]", include_for_each: '"ab"', value: "fitem" }],
          },
        ],
        on_success_hook: "output.payload = t.response.payload",
      }),
      { payload: {} },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual({ out: ["a", "b"] });
  });

  it("call_for_each over a string makes one call per character", async () => {
    const result = await runDefinition(
      stringify({
        name: "a",
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            call_for_each: '"ab"',
            field_mappings: [{ field: "c", value: "sritem" }],
          },
        ],
        on_success_hook: "output.payload = t.map((call) => call.response.payload.c)",
      }),
      { payload: {} },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual(["a", "b"]);
  });

  it("apply_to_each over a string checks each character", async () => {
    const result = await runDefinition(
      stringify({
        name: "a",
        validation_rules: [{ type: "INPUT", field: "vritem", rule: '_ !== "b"', apply_to_each: '"abc"' }],
      }),
      { payload: {} },
    );
    expect(result.output.status).toBe(422);
    expect(result.record.items.filter((item) => item.kind === "VALIDATION_FAILURE")).toEqual([
      expect.objectContaining({ label: "vritem", vridx: 1 }),
    ]);
  });
});
