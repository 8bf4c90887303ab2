import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createRunId } from "../../src/engine/run-id.js";
import { runDefinition } from "../_helpers.js";

const taxId = "123-45-6789";
const masks = [{ type: "INPUT", field: "tax_id" }];

describe("INPUT masks apply to the INPUT item however the run goes on (SPEC §4.8, §5)", () => {
  it.each([
    ["before_hook throws", { before_hook: "throw new Error('no')" }],
    ["before_hook calls end()", { before_hook: "end({ status: 400, payload: { error: 'bad' } })" }],
    ["before_hook calls end() with success", { before_hook: "end()" }],
    [
      "the run time-out passes in before_hook",
      { timeout_ms: 20, before_hook: "const t = Date.now()\nwhile (Date.now() - t < 60) {}" },
    ],
  ])("when %s", async (_title, parts) => {
    const result = await runDefinition(stringify({ name: "a", masks, ...parts }), {
      payload: { tax_id: taxId },
    });
    expect(JSON.stringify(result.record)).not.toContain(taxId);
  });
});

describe("the §12 default failure output is masked (SPEC §12, §4.8 'error bodies that echo input')", () => {
  it("for a thrown error whose message holds a masked value", async () => {
    const result = await runDefinition(
      stringify({
        name: "a",
        masks,
        on_success_hook: "throw new Error('bad tax id ' + input.payload.tax_id)",
      }),
      { payload: { tax_id: taxId } },
    );
    expect(result.output.status).toBe(500);
    expect(JSON.stringify(result.output)).not.toContain(taxId);
    // What serve sends is the masked payload too, not the text made when the output was checked.
    expect(result.outputJson).toBeUndefined();
  });

  it("leaves the text serve sends as the payload's JSON when the run answers itself", async () => {
    const result = await runDefinition(
      stringify({
        name: "a",
        masks,
        on_success_hook: "output.payload = { id: input.payload.tax_id, n: [1, 2] }",
      }),
      { payload: { tax_id: taxId } },
    );
    expect(result.outputJson).toBe(JSON.stringify({ id: taxId, n: [1, 2] }));
  });

  it("for an adapter message that echoes a masked value", async () => {
    const result = await runDefinition(
      stringify({
        name: "a",
        masks,
        service_requests: [
          {
            formula_variable: "core",
            system: "core",
            field_mappings: [
              { field: "service_path", literal: "/core/v1/persons" },
              { field: "method", literal: "POST" },
            ],
          },
        ],
      }),
      { payload: { tax_id: taxId } },
      {
        mocks: { core: { success: false, status: 409, payload: null, messages: [`tax id ${taxId} exists`] } },
      },
    );
    expect(result.output.status).toBe(502);
    expect(JSON.stringify(result.output)).not.toContain(taxId);
  });
});

describe("masking by value keeps the record a §5 record (SPEC §5)", () => {
  it.each(["data", "info", "kind"])("when a masked value is %j", async (value) => {
    const result = await runDefinition(
      stringify({
        name: "a",
        masks: [{ type: "INPUT", field: "v" }],
        on_success_hook: "console.log('hello')",
      }),
      { payload: { v: value } },
    );
    const [input, log, output] = result.record.items;
    expect(input).toMatchObject({ kind: "INPUT", data: { payload: { v: "XXXXXXXXXXXX" } } });
    expect(log).toMatchObject({ kind: "LOG", level: "info", data: "hello" });
    expect(output).toMatchObject({ kind: "OUTPUT", data: { status: 200 } });
  });

  it("when a masked value is part of the run id", async () => {
    const value = createRunId().slice(0, 5);
    const result = await runDefinition(stringify({ name: "a", masks: [{ type: "INPUT", field: "v" }] }), {
      payload: { v: value },
    });
    expect(result.record.id).toBe(result.runId);
  });
});
