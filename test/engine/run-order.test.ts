import { describe, expect, it } from "vitest";
import type { MockAnswers } from "../../src/adapters/mock.js";
import { serviceRequestHooks } from "../../src/definition/types.js";
import type { Item } from "../../src/engine/types.js";
import { type RunDefinitionOptions, runDefinition } from "../_helpers.js";

/** What a run did, in order: each LOG item's text, `REQUEST <label>` and the kind of every other item. */
function trace(items: readonly Item[]): string[] {
  return items.map((item) =>
    item.kind === "LOG" ? String(item.data) : item.kind === "REQUEST" ? `REQUEST ${item.label}` : item.kind,
  );
}

function failures(items: readonly Item[]) {
  return items.flatMap((item) => (item.kind === "FAILURE" ? [item.error] : []));
}

/** A hook that logs its name (and, for integration hooks, the output status) and throws when the input asks. */
function hook(name: string, indent: string, withStatus: boolean): string {
  const log = withStatus ? `console.log("${name} " + output.status)` : `console.log("${name}")`;
  return [
    `${name}: |`,
    `  ${log}`,
    `  if (input.payload.throw_in === "${name}") throw new Error("${name} broke")`,
  ]
    .map((line) => indent + line)
    .join("\n");
}

/** Every hook and step of SPEC §4.4 and §4.6 logs when it runs. */
const orderDefinition = `name: order
${["before_hook", "on_success_hook", "on_failure_hook", "finally_hook"].map((name) => hook(name, "", true)).join("\n")}
masks:
  - type: INPUT
    field: card
    apply_if: (console.log("INPUT mask"), true)
  - type: RESPONSE
    service_request: core
    field: card
    apply_if: (console.log("RESPONSE mask"), true)
validation_rules:
  - type: INPUT
    field: (console.log("INPUT rule field"), input.payload.valid)
    rule: (console.log("INPUT rule"), _ !== false)
    pass_hook: console.log("INPUT rule pass_hook")
    fail_hook: console.log("INPUT rule fail_hook")
  - type: REQUEST
    service_request: core
    field: core.request.payload.body.note
    rule: (console.log("REQUEST rule"), _ === "n")
  - type: RESPONSE
    service_request: core
    field: core.response.payload.ok
    rule: (console.log("RESPONSE rule"), _ === true)
service_requests:
  - formula_variable: core
    system: core
    call_if: (console.log("call_if"), true)
${serviceRequestHooks.map((name) => hook(name, "    ", false)).join("\n")}
    field_mappings:
      - field: service_path
        literal: /x
      - field: method
        literal: POST
      - field: body.note
        value: |
          console.log("field mapping")
          if (input.payload.throw_in === "field mapping") throw new Error("field mapping broke")
          return "n"
`;

const hang: RunDefinitionOptions["adapters"] = () => ({ execute: () => new Promise(() => {}) });

const answered: MockAnswers = { core: { success: true, status: 200, payload: { ok: true } } };

const upToTheCall = [
  "INPUT",
  // INPUT masks apply to the payload as received (before any hook can fail or end the run) and again
  // after before_hook (SPEC §4.8).
  "INPUT mask",
  "before_hook 200",
  "INPUT mask",
  "INPUT rule field",
  "INPUT rule",
  "INPUT rule pass_hook",
  "call_if",
  "before_prepare_request_hook",
  "field mapping",
];
const upToTheExecution = [
  ...upToTheCall,
  "REQUEST rule",
  "after_prepare_request_success_hook",
  "before_execute_request_hook",
  "REQUEST core",
  "RESPONSE mask",
];
const successfulCall = [
  ...upToTheExecution,
  "RESPONSE rule",
  "after_execute_request_success_hook",
  "after_overall_success_hook",
];

describe("the order of a run (SPEC §4.4)", () => {
  it.each([
    {
      name: "a successful run",
      payload: { valid: true },
      mocks: answered,
      order: [...successfulCall, "on_success_hook 200", "finally_hook 200", "OUTPUT"],
      status: "success",
      outputStatus: 200,
    },
    {
      name: "a failed INPUT rule: service requests skipped, on_failure_hook, finally_hook",
      payload: { valid: false },
      mocks: answered,
      order: [
        "INPUT",
        "INPUT mask",
        "before_hook 200",
        "INPUT mask",
        "INPUT rule field",
        "INPUT rule",
        "VALIDATION_FAILURE",
        "INPUT rule fail_hook",
        "on_failure_hook 422",
        "finally_hook 422",
        "OUTPUT",
      ],
      status: "failure",
      outputStatus: 422,
    },
    {
      name: "an error in before_hook: on to step 6",
      payload: { valid: true, throw_in: "before_hook" },
      mocks: answered,
      order: [
        "INPUT",
        "INPUT mask",
        "before_hook 200",
        "FAILURE",
        "on_failure_hook 500",
        "finally_hook 500",
        "OUTPUT",
      ],
      status: "failure",
      outputStatus: 500,
    },
    {
      name: "an error in on_success_hook: straight to finally_hook, no on_failure_hook",
      payload: { valid: true, throw_in: "on_success_hook" },
      mocks: answered,
      order: [...successfulCall, "on_success_hook 200", "FAILURE", "finally_hook 500", "OUTPUT"],
      status: "failure",
      outputStatus: 500,
    },
    {
      name: "an error in on_failure_hook: straight to finally_hook",
      payload: { valid: false, throw_in: "on_failure_hook" },
      mocks: answered,
      order: [
        "INPUT",
        "INPUT mask",
        "before_hook 200",
        "INPUT mask",
        "INPUT rule field",
        "INPUT rule",
        "VALIDATION_FAILURE",
        "INPUT rule fail_hook",
        "on_failure_hook 422",
        "FAILURE",
        "finally_hook 422",
        "OUTPUT",
      ],
      status: "failure",
      outputStatus: 422,
    },
    {
      name: "an error in finally_hook: the run ends in failure",
      payload: { valid: true, throw_in: "finally_hook" },
      mocks: answered,
      order: [...successfulCall, "on_success_hook 200", "finally_hook 200", "FAILURE", "OUTPUT"],
      status: "failure",
      outputStatus: 500,
    },
    {
      name: "an error in a field mapping: the prepare failure hooks, no execution",
      payload: { valid: true, throw_in: "field mapping" },
      mocks: answered,
      order: [
        ...upToTheCall,
        "FAILURE",
        "REQUEST core",
        "after_prepare_request_failure_hook",
        "after_overall_failure_hook",
        "on_failure_hook 500",
        "finally_hook 500",
        "OUTPUT",
      ],
      status: "failure",
      outputStatus: 500,
    },
    {
      name: "an adapter answering success: false: the execute failure hooks",
      payload: { valid: true },
      mocks: { core: { success: false, status: 503, payload: { ok: false } } },
      order: [
        ...upToTheExecution,
        "after_execute_request_failure_hook",
        "after_overall_failure_hook",
        "on_failure_hook 502",
        "finally_hook 502",
        "OUTPUT",
      ],
      status: "failure",
      outputStatus: 502,
    },
    {
      name: "a failed RESPONSE rule: the execute failure hooks",
      payload: { valid: true },
      mocks: { core: { success: true, status: 200, payload: { ok: false } } },
      order: [
        ...upToTheExecution,
        "RESPONSE rule",
        "VALIDATION_FAILURE",
        "after_execute_request_failure_hook",
        "after_overall_failure_hook",
        "on_failure_hook 422",
        "finally_hook 422",
        "OUTPUT",
      ],
      status: "failure",
      outputStatus: 422,
    },
    {
      name: "a run time-out while the adapter does not answer: the execute failure hooks",
      payload: { valid: true },
      mocks: answered,
      options: { adapters: hang, runTimeoutMs: 100 },
      order: [
        ...upToTheExecution,
        "after_execute_request_failure_hook",
        "after_overall_failure_hook",
        "on_failure_hook 504",
        "finally_hook 504",
        "OUTPUT",
      ],
      status: "failure",
      outputStatus: 504,
    },
  ] as {
    name: string;
    payload: Record<string, unknown>;
    mocks: MockAnswers;
    options?: RunDefinitionOptions;
    order: string[];
    status: string;
    outputStatus: number;
  }[])("runs in order: $name", async ({ payload, mocks, options, order, status, outputStatus }) => {
    const result = await runDefinition(orderDefinition, { payload }, { mocks, ...options });
    expect(trace(result.record.items)).toEqual(order);
    expect(result.status).toBe(status);
    expect(result.record.status).toBe(status);
    expect(result.output.status).toBe(outputStatus);
  });

  it.each([
    { thrower: "before_hook", cell: "before_hook" },
    { thrower: "on_success_hook", cell: "on_success_hook" },
    { thrower: "finally_hook", cell: "finally_hook" },
    { thrower: "field mapping", cell: "service_requests[0].field_mappings[2].value" },
  ])("records an error in $thrower as a FAILURE item naming the cell", async ({ thrower, cell }) => {
    const result = await runDefinition(
      orderDefinition,
      { payload: { valid: true, throw_in: thrower } },
      { mocks: answered },
    );
    expect(failures(result.record.items)).toEqual([
      expect.objectContaining({ cell, message: expect.stringContaining(`${thrower} broke`) }),
    ]);
  });

  const overwriting = `name: overwrite
before_hook: |
  if (input.payload.fail === "hook") throw new Error("broken")
  if (input.payload.fail === "loop") while (true) {}
on_failure_hook: |
  historize(JSON.parse(JSON.stringify(output)), "seen")
  output.status = 418
  output.payload = { handled: true }
validation_rules:
  - type: INPUT
    field: input.payload.fail
    rule: _ !== "rule"
service_requests:
  - formula_variable: core
    system: core
    field_mappings:
      - field: service_path
        literal: /x
      - field: method
        literal: GET
`;

  it.each([
    { fail: "rule", mocks: answered, seen: 422 },
    { fail: "hook", mocks: answered, seen: 500 },
    { fail: "loop", mocks: answered, seen: 504 },
    { fail: "adapter", mocks: { core: { success: false, status: 500 } }, seen: 502 },
    { fail: "nothing to answer", mocks: {}, seen: 502 },
  ])(
    "sets the §12 default ($seen) before on_failure_hook runs, which overwrites it (fail: $fail)",
    async ({ fail, mocks, seen }) => {
      const result = await runDefinition(overwriting, { payload: { fail } }, { mocks, cellTimeoutMs: 50 });
      const debug = result.record.items.find((item) => item.kind === "DEBUG");
      expect(debug).toMatchObject({
        label: "seen",
        data: {
          status: seen,
          payload: { error: { code: expect.any(String), run_id: result.runId } },
        },
      });
      expect(result.status).toBe("failure");
      expect(result.output).toMatchObject({ status: 418, payload: { handled: true } });
      expect(result.record.items.at(-1)).toMatchObject({
        kind: "OUTPUT",
        data: { status: 418, payload: { handled: true } },
      });
    },
  );

  it("refuses to run an inactive definition (step 1)", async () => {
    await expect(
      runDefinition('name: off\nactive: false\nbefore_hook: console.log("ran")\n', { payload: {} }),
    ).rejects.toThrow(/off is not active/);
  });

  const rules = `name: rules
validation_rules:
  - type: INPUT
    sequence: 30
    field: input.payload.c
    rule: (console.log("c"), _ === true)
    message: c failed
  - type: INPUT
    sequence: 10
    field: input.payload.a
    rule: (console.log("a"), _ === true)
    message: a failed
    abort_on_failure: false
  - type: INPUT
    sequence: 10
    field: input.payload.b
    rule: (console.log("b"), _ === true)
    message: b failed
service_requests:
  - formula_variable: tr
    system: transform
    before_prepare_request_hook: console.log("service request")
    field_mappings:
      - field: n
        literal: 1
`;

  it.each([
    {
      payload: { a: true, b: true, c: true },
      order: ["a", "b", "c", "service request", "REQUEST tr"],
      failed: [],
      status: "success",
    },
    {
      payload: { a: false, b: true, c: true },
      order: ["a", "VALIDATION_FAILURE", "b", "c", "service request", "REQUEST tr"],
      failed: ["a failed"],
      status: "success",
    },
    {
      payload: { a: false, b: false, c: false },
      order: ["a", "VALIDATION_FAILURE", "b", "VALIDATION_FAILURE", "c", "VALIDATION_FAILURE"],
      failed: ["a failed", "b failed", "c failed"],
      status: "failure",
    },
    {
      payload: { a: true, b: false, c: true },
      order: ["a", "b", "VALIDATION_FAILURE", "c"],
      failed: ["b failed"],
      status: "failure",
    },
  ])(
    "runs every INPUT rule in sequence order before failing (step 4): $payload",
    async ({ payload, order, failed, status }) => {
      const result = await runDefinition(rules, { payload });
      expect(trace(result.record.items)).toEqual(["INPUT", ...order, "OUTPUT"]);
      expect(
        result.record.items.flatMap((item) => (item.kind === "VALIDATION_FAILURE" ? [item.message] : [])),
      ).toEqual(failed);
      expect(result.status).toBe(status);
      expect(result.output.status).toBe(status === "success" ? 200 : 422);
    },
  );

  it("runs service requests in sequence order, ties in file order (step 5)", async () => {
    const request = (fv: string, sequence: number | undefined) => `  - formula_variable: ${fv}
    system: transform
${sequence === undefined ? "" : `    sequence: ${sequence}\n`}    before_prepare_request_hook: console.log("${fv}")
    field_mappings:
      - field: n
        literal: 1
`;
    const result = await runDefinition(
      `name: sequenced\nservice_requests:\n${request("late", 20)}${request("early", 10)}${request("unsequenced", undefined)}${request("tied", 10)}`,
      { payload: {} },
    );
    expect(trace(result.record.items)).toEqual([
      "INPUT",
      "unsequenced",
      "REQUEST unsequenced",
      "early",
      "REQUEST early",
      "tied",
      "REQUEST tied",
      "late",
      "REQUEST late",
      "OUTPUT",
    ]);
  });

  it("lets finally_hook overwrite the default failure output", async () => {
    const result = await runDefinition(
      `name: late
before_hook: throw new Error("broken")
finally_hook: |
  output.status = 503
  output.payload = "try later"
`,
      { payload: {} },
    );
    expect(result.status).toBe("failure");
    expect(result.output).toMatchObject({ status: 503, payload: "try later" });
  });
});

describe("output checks (SPEC §4.10)", () => {
  const contentTypeMessage = "output.payload must be a byte string when Content-Type is set";

  it.each([
    ["Content-Type", '{ "a": 1 }'],
    ["content-type", '"plain text"'],
    ["CONTENT-TYPE", "[1, 2]"],
    ["cOnTeNt-TyPe", "null"],
  ])("fails the run when %s is set with payload %s", async (header, payload) => {
    const result = await runDefinition(
      `name: typed
on_success_hook: |
  output.headers["${header}"] = "text/plain"
  output.payload = ${payload}
`,
      { payload: {} },
    );
    expect(result.status).toBe("failure");
    expect(failures(result.record.items)).toEqual([expect.objectContaining({ message: contentTypeMessage })]);
    expect(result.output.status).toBe(500);
    expect(result.output.payload).toMatchObject({ error: { run_id: result.runId } });
    expect(Object.keys(result.output.headers).map((name) => name.toLowerCase())).not.toContain(
      "content-type",
    );
    expect(result.record.items.at(-1)).toMatchObject({ kind: "OUTPUT", data: { status: 500 } });
  });

  it.each(["Content-Type", "content-type", "CONTENT-TYPE"])(
    "sends a byte-string payload with %s",
    async (header) => {
      const result = await runDefinition(
        `name: typed
on_success_hook: |
  output.headers["${header}"] = "text/csv"
  output.payload = bytes("a,b")
`,
        { payload: {} },
      );
      expect(result.status).toBe("success");
      expect(result.output.headers).toEqual({ [header]: "text/csv" });
      expect(Buffer.from(result.output.payload as Uint8Array).toString()).toBe("a,b");
      expect(failures(result.record.items)).toEqual([]);
    },
  );
});

/** One service request on `system` with the given extra YAML under it (indented four spaces). */
function serviceRequest(system: "core" | "transform", extra = ""): string {
  const fv = system === "core" ? "core" : "tr";
  const http =
    system === "core"
      ? "      - field: service_path\n        literal: /x\n      - field: method\n        literal: POST\n"
      : "";
  return `service_requests:
  - formula_variable: ${fv}
    system: ${system}
    field_mappings:
${http}      - field: amount
        value: input.payload.amount
${extra}`;
}

describe("default failure outputs (SPEC §12)", () => {
  it.each([
    {
      name: "a failed INPUT rule",
      body: `validation_rules:
  - type: INPUT
    field: input.payload.amount
    rule: _ > 0
    message: amount must be positive
`,
      options: {},
      status: 422,
      detail: "amount must be positive",
    },
    ...(["REQUEST", "RESPONSE"] as const).map((type) => ({
      name: `a failed ${type} rule`,
      body: `${serviceRequest("transform")}validation_rules:
  - type: ${type}
    service_request: tr
    field: tr.${type.toLowerCase()}.payload.amount
    rule: _ > 0
    message: amount must be positive
`,
      options: {},
      status: 422,
      detail: "amount must be positive",
    })),
    {
      name: "an adapter answering success: false",
      body: serviceRequest("core"),
      options: { mocks: { core: { success: false, status: 500, messages: ["core is down"] } } },
      status: 502,
    },
    {
      name: "an adapter that throws (no mock answer)",
      body: serviceRequest("core"),
      options: { mocks: {} },
      status: 502,
    },
    {
      name: "a cell time-out",
      body: "before_hook: while (true) {}\n",
      options: { cellTimeoutMs: 50 },
      status: 504,
    },
    {
      name: "a run time-out",
      body: serviceRequest("core"),
      options: { adapters: hang, runTimeoutMs: 100 },
      status: 504,
    },
    {
      name: "a run time-out set by the definition's timeout_ms",
      body: `timeout_ms: 100\n${serviceRequest("core")}`,
      options: { adapters: hang, runTimeoutMs: 30000 },
      status: 504,
    },
    {
      name: "a hook error",
      body: 'before_hook: throw new Error("broken")\n',
      options: {},
      status: 500,
    },
    {
      name: "a failed cast",
      body: serviceRequest("transform", "        value_type: integer\n"),
      options: {},
      status: 500,
      payload: { amount: "abc" },
    },
    {
      name: "a failed null check",
      body: serviceRequest("transform"),
      options: {},
      status: 500,
      payload: {},
    },
    {
      name: "a bad output",
      body: 'on_success_hook: output.headers["Content-Type"] = "text/plain"\n',
      options: {},
      status: 500,
    },
    {
      name: "an INPUT mask applied too few times",
      body: "masks:\n  - type: INPUT\n    field: card\n    abort_if_not_applied_x_times: 1\n",
      options: {},
      status: 500,
    },
  ] as {
    name: string;
    body: string;
    options: RunDefinitionOptions;
    status: number;
    payload?: unknown;
    detail?: string;
  }[])("answers $status after $name", async ({ body, options, status, payload, detail }) => {
    const started = performance.now();
    const result = await runDefinition(
      `name: defaults\n${body}`,
      { payload: payload ?? { amount: -1 } },
      options,
    );
    expect(performance.now() - started).toBeLessThan(3000);
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(status);
    expect(result.output.payload).toEqual({
      error: {
        code: expect.any(String),
        message: expect.any(String),
        run_id: result.runId,
        details: detail ? expect.arrayContaining([detail]) : expect.any(Array),
      },
    });
    expect(result.record.id).toBe(result.runId);
    expect(result.record.items.at(-1)).toMatchObject({
      kind: "OUTPUT",
      data: { status, payload: { error: { run_id: result.runId } } },
    });
  });

  it("keeps a successful run's output", async () => {
    const result = await runDefinition(`name: defaults\n${serviceRequest("transform")}`, {
      payload: { amount: 5 },
    });
    expect(result.status).toBe("success");
    expect(result.output).toEqual({
      status: 200,
      headers: {},
      payload: "Integration defaults completed successfully",
    });
  });
});

describe("a FAILURE item", () => {
  it("names the definition file, the cell and its line", async () => {
    const definition = "name: a\nbefore_hook: |\n  const x = 1\n  throw new Error('boom')\n";
    const result = await runDefinition(definition, { payload: {} });
    expect(failures(result.record.items)).toEqual([
      {
        code: "cell_error",
        message: expect.stringContaining("boom"),
        cell: "before_hook",
        file: "integrations/a.yaml",
        line: 4,
      },
    ]);
  });
});

describe("a run's INPUT item", () => {
  it("shows the path and query a request without one of its own stands for", async () => {
    const definition = "name: a\nendpoints:\n  - { method: GET, path: '/things/{id}' }\n";
    const result = await runDefinition(definition, {
      payload: {},
      path: { id: "a b" },
      params: { q: "x&y", tag: ["1", "2"] },
    });
    const input = result.record.items.find((item) => item.kind === "INPUT");
    expect(input?.kind === "INPUT" && input.data.fullpath).toBe("/things/a%20b?q=x%26y&tag=1&tag=2");
  });
});
