import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { MockAnswers } from "../../src/adapters/mock.js";
import { serviceRequestHooks } from "../../src/definition/types.js";
import type { Item } from "../../src/engine/types.js";
import { runDefinition } from "../_helpers.js";

type Result = Awaited<ReturnType<typeof runDefinition>>;
type RequestItem = Extract<Item, { kind: "REQUEST" }>;

const hooks = serviceRequestHooks;

/** The mappings every service request on the http system `core` needs. */
const httpMappings = [
  { field: "service_path", literal: "/core/v1/persons" },
  { field: "method", literal: "POST" },
];

/** Each of the eight hooks records the formula variable as it sees it, as a DEBUG item named after the hook. */
const tracedHooks = (fv: string) =>
  Object.fromEntries(hooks.map((hook) => [hook, `historize(${fv}, "${hook}")`]));

/** Runs a definition given as an object. */
function run(definition: Record<string, unknown>, payload: unknown = {}, mocks: MockAnswers = {}) {
  return runDefinition(stringify({ name: "a", ...definition }), { payload }, { mocks });
}

const debugLabels = (result: Result) =>
  result.record.items.flatMap((item) => (item.kind === "DEBUG" ? [item.label] : []));
const debugData = (result: Result) =>
  Object.fromEntries(
    result.record.items.flatMap((item) => (item.kind === "DEBUG" ? [[item.label, item.data]] : [])),
  );
const requestItems = (result: Result) =>
  result.record.items.filter((item): item is RequestItem => item.kind === "REQUEST");

const created = { success: true, status: 201, payload: { id: 7 }, messages: ["created"] };
const refused = {
  success: false,
  status: 409,
  payload: { error: "duplicate" },
  messages: ["duplicate person"],
};

describe("service requests (SPEC §4.6)", () => {
  it.each<[string, (number | undefined)[], string[]]>([
    ["ascending sequence", [30, 10, 20], ["b", "c", "a"]],
    ["ties in file order", [1, 1, 1], ["a", "b", "c"]],
    ["a missing sequence as 0", [undefined, -1, undefined], ["b", "a", "c"]],
  ])("runs in %s", async (_case, sequences, order) => {
    const result = await run({
      service_requests: sequences.map((sequence, index) => ({
        formula_variable: ["a", "b", "c"][index],
        system: "transform",
        field_mappings: [{ field: "n", literal: index }],
        ...(sequence === undefined ? {} : { sequence }),
      })),
    });
    expect(result.status).toBe("success");
    expect(requestItems(result).map((item) => item.label)).toEqual(order);
  });

  it("adds one REQUEST item per call, labelled with the formula variable", async () => {
    const result = await run(
      {
        service_requests: [
          {
            formula_variable: "core",
            system: "core",
            service_name: "persons.create",
            field_mappings: [...httpMappings, { field: "body.name", value: "input.payload.name" }],
          },
        ],
      },
      { name: "Ada" },
      { core: created },
    );
    const requests = requestItems(result);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      kind: "REQUEST",
      label: "core",
      sridx: null,
      request: {
        service_name: "persons.create",
        payload: { service_path: "/core/v1/persons", method: "POST", body: { name: "Ada" } },
      },
      response: { success: true, status: 201, payload: { id: 7 }, messages: ["created"] },
    });
    expect(requests[0]?.duration_ms).toEqual(expect.any(Number));
    expect(requests[0]?.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it.each<[string, unknown, boolean]>([
    ["false", "false", false],
    ["0", "0", false],
    ["an empty string", '""', false],
    ["a false input flag", "input.payload.go", false],
    ["an empty cell", "", true],
    ["null", null, true],
    ["true", "true", true],
    ["a truthy value", '"yes"', true],
  ])("call_if of %s decides whether the call is made", async (_case, callIf, called) => {
    const result = await run(
      {
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            call_if: callIf,
            field_mappings: [{ field: "x", literal: 1 }],
            ...tracedHooks("t"),
          },
        ],
        on_success_hook: "output.payload = { t }",
      },
      { go: false },
    );
    expect(result.status).toBe("success");
    expect(requestItems(result)).toHaveLength(called ? 1 : 0);
    expect(debugLabels(result)).toHaveLength(called ? 5 : 0);
    expect(result.output.payload).toEqual({
      t: called ? { request: { service_name: "n/a", payload: { x: 1 } }, response: expect.anything() } : null,
    });
  });

  it("sends the request as the hooks before the execution left it", async () => {
    const result = await run({
      service_requests: [
        {
          formula_variable: "t",
          system: "transform",
          field_mappings: [{ field: "amount", literal: 5 }],
          after_prepare_request_success_hook: "t.request.payload.currency = 'EUR'",
          before_execute_request_hook: "t.request.payload.signed = true",
        },
      ],
    });
    const sent = { amount: 5, currency: "EUR", signed: true };
    expect(requestItems(result)[0]).toMatchObject({
      request: { payload: sent },
      response: { payload: sent },
    });
  });

  it("makes every formula variable null from the start of the run", async () => {
    const result = await run({
      before_hook: "historize([first, second], 'before')",
      service_requests: [
        {
          formula_variable: "first",
          system: "transform",
          after_overall_success_hook: "historize(second, 'between')",
        },
        { formula_variable: "second", system: "transform" },
      ],
    });
    expect(debugData(result)).toEqual({ before: [null, null], between: null });
  });

  it("gives call_for_each an array with one { request, response } per item and null for items call_if skips", async () => {
    const result = await run(
      {
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            call_for_each: "input.payload.items",
            call_if: 'sritem !== "b"',
            field_mappings: [
              { field: "item", value: "sritem" },
              { field: "idx", value: "sridx" },
            ],
          },
        ],
        on_success_hook: "output.payload = t",
      },
      { items: ["a", "b", "c"] },
    );
    expect(result.output.payload).toEqual([
      {
        request: { service_name: "n/a", payload: { item: "a", idx: 0 } },
        response: { success: true, payload: { item: "a", idx: 0 }, messages: [] },
      },
      null,
      {
        request: { service_name: "n/a", payload: { item: "c", idx: 2 } },
        response: { success: true, payload: { item: "c", idx: 2 }, messages: [] },
      },
    ]);
    expect(requestItems(result).map((item) => [item.label, item.sridx, item.request.payload])).toEqual([
      ["t", 0, { item: "a", idx: 0 }],
      ["t", 2, { item: "c", idx: 2 }],
    ]);
  });

  it.each<[string, unknown]>([
    ["an empty list", []],
    ["a list whose items call_if all skips", ["skip", "skip"]],
  ])("gives call_for_each over %s no call", async (_case, items) => {
    const result = await run(
      {
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            call_for_each: "input.payload.items",
            call_if: 'sritem !== "skip"',
          },
        ],
        on_success_hook: "output.payload = { t }",
      },
      { items },
    );
    expect(result.status).toBe("success");
    expect(requestItems(result)).toEqual([]);
    expect(result.output.payload).toEqual({ t: (items as unknown[]).map(() => null) });
  });

  it("binds sritem and sridx in call_if, the hooks and the mappings, and fv[sridx] is the current call", async () => {
    const seen = "input.payload.seen.push";
    const result = await run(
      {
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            call_for_each: "input.payload.items",
            call_if: `(${seen}(\`call_if \${sridx}:\${sritem.name}\`), sridx !== 1)`,
            before_prepare_request_hook: `${seen}(\`before_prepare \${sridx}:\${sritem.name} \${t[sridx]}\`)`,
            after_prepare_request_success_hook: `${seen}(\`after_prepare \${sridx}:\${t[sridx].request.payload.name}\`)`,
            after_execute_request_success_hook: `${seen}(\`after_execute \${sridx}:\${t[sridx].response.payload.name}\`)`,
            after_overall_success_hook: `${seen}(\`after_overall \${sridx}:\${sritem.name}\`)`,
            field_mappings: [
              { field: "name", value: "sritem.name" },
              { field: "codes[fidx]", include_for_each: "sritem.codes", value: "`${fitem}-${sridx}`" },
            ],
          },
        ],
        on_success_hook:
          "output.payload = { seen: input.payload.seen, codes: t.map((call) => call && call.request.payload.codes) }",
      },
      {
        seen: [],
        items: [
          { name: "x", codes: ["p"] },
          { name: "y", codes: [] },
          { name: "z", codes: ["q", "r"] },
        ],
      },
    );
    expect(result.output.payload).toEqual({
      seen: [
        "call_if 0:x",
        "before_prepare 0:x null",
        "after_prepare 0:x",
        "after_execute 0:x",
        "after_overall 0:x",
        "call_if 1:y",
        "call_if 2:z",
        "before_prepare 2:z null",
        "after_prepare 2:z",
        "after_execute 2:z",
        "after_overall 2:z",
      ],
      codes: [["p-0"], null, ["q-2", "r-2"]],
    });
  });

  it("answers a call_for_each from a mock list indexed by sridx", async () => {
    const result = await run(
      {
        service_requests: [
          {
            formula_variable: "core",
            system: "core",
            call_for_each: "input.payload.items",
            call_if: "sritem !== null",
            field_mappings: httpMappings,
          },
        ],
        on_success_hook: "output.payload = core.map((call) => call && call.response.payload)",
      },
      { items: ["a", null, "c"] },
      {
        core: [{ success: true, payload: { n: 0 } }, null, { success: true, payload: { n: 2 } }],
      },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual([{ n: 0 }, null, { n: 2 }]);
    expect(requestItems(result).map((item) => item.sridx)).toEqual([0, 2]);
  });

  /** Field mappings whose `amount` mapping records the formula variable and casts `value` to integer. */
  const amountMappings = (value: string) => ({
    field_mappings: [
      ...httpMappings,
      { field: "amount", value: `(historize(core, "mapping"), ${value})`, value_type: "integer" },
    ],
  });
  const throwing = (hook: string) => ({ [hook]: `historize(core, "${hook}")\nthrow new Error("boom")\n` });

  it.each<[string, MockAnswers, Record<string, unknown>, string[], "success" | "failure", number]>([
    [
      "a success",
      { core: created },
      {},
      [
        "before_prepare_request_hook",
        "mapping",
        "after_prepare_request_success_hook",
        "before_execute_request_hook",
        "after_execute_request_success_hook",
        "after_overall_success_hook",
      ],
      "success",
      200,
    ],
    [
      "an adapter answer of success: false",
      { core: refused },
      {},
      [
        "before_prepare_request_hook",
        "mapping",
        "after_prepare_request_success_hook",
        "before_execute_request_hook",
        "after_execute_request_failure_hook",
        "after_overall_failure_hook",
      ],
      "failure",
      502,
    ],
    [
      "a thrown adapter error (no mock answer)",
      {},
      {},
      [
        "before_prepare_request_hook",
        "mapping",
        "after_prepare_request_success_hook",
        "before_execute_request_hook",
        "after_execute_request_failure_hook",
        "after_overall_failure_hook",
      ],
      "failure",
      502,
    ],
    [
      "a failed prepare (a cast error)",
      { core: created },
      amountMappings('"abc"'),
      [
        "before_prepare_request_hook",
        "mapping",
        "after_prepare_request_failure_hook",
        "after_overall_failure_hook",
      ],
      "failure",
      500,
    ],
    [
      "a failed prepare (an error in before_prepare_request_hook)",
      { core: created },
      throwing("before_prepare_request_hook"),
      ["before_prepare_request_hook", "after_prepare_request_failure_hook", "after_overall_failure_hook"],
      "failure",
      500,
    ],
    [
      "an error in after_execute_request_success_hook",
      { core: created },
      throwing("after_execute_request_success_hook"),
      [
        "before_prepare_request_hook",
        "mapping",
        "after_prepare_request_success_hook",
        "before_execute_request_hook",
        "after_execute_request_success_hook",
        "after_overall_failure_hook",
      ],
      "failure",
      500,
    ],
  ])("runs the hooks in order for %s", async (_case, mocks, overrides, trace, status, outputStatus) => {
    const result = await run(
      {
        service_requests: [
          {
            formula_variable: "core",
            system: "core",
            ...tracedHooks("core"),
            ...amountMappings("1"),
            ...overrides,
          },
        ],
      },
      {},
      mocks,
    );
    expect(debugLabels(result)).toEqual(trace);
    expect(result.status).toBe(status);
    expect(result.output.status).toBe(outputStatus);
    const requests = requestItems(result);
    expect(requests).toHaveLength(1);
    const executed = trace.includes("before_execute_request_hook");
    expect(requests[0]?.response === null).toBe(!executed);
  });

  const request = {
    service_name: "persons.create",
    payload: { ...Object.fromEntries(httpMappings.map((m) => [m.field, m.literal])), name: "Ada" },
  };

  it.each<[string, MockAnswers, Record<string, unknown>]>([
    [
      "a success",
      { core: created },
      {
        before_prepare_request_hook: null,
        mapping: null,
        after_prepare_request_success_hook: { request, response: null },
        before_execute_request_hook: { request, response: null },
        after_execute_request_success_hook: { request, response: created },
        after_overall_success_hook: { request, response: created },
      },
    ],
    [
      "success: false",
      { core: refused },
      {
        before_prepare_request_hook: null,
        mapping: null,
        after_prepare_request_success_hook: { request, response: null },
        before_execute_request_hook: { request, response: null },
        after_execute_request_failure_hook: { request, response: refused },
        after_overall_failure_hook: { request, response: refused },
      },
    ],
    [
      "a thrown adapter error",
      {},
      {
        before_prepare_request_hook: null,
        mapping: null,
        after_prepare_request_success_hook: { request, response: null },
        before_execute_request_hook: { request, response: null },
        after_execute_request_failure_hook: {
          request,
          response: { success: false, payload: null, messages: [expect.any(String)] },
        },
        after_overall_failure_hook: {
          request,
          response: { success: false, payload: null, messages: [expect.any(String)] },
        },
      },
    ],
  ])(
    "sets the formula variable's request after the mappings and its response before the execute hooks, on %s",
    async (_case, mocks, expected) => {
      const result = await run(
        {
          service_requests: [
            {
              formula_variable: "core",
              system: "core",
              service_name: "persons.create",
              ...tracedHooks("core"),
              field_mappings: [
                ...httpMappings,
                { field: "name", value: '(historize(core, "mapping"), "Ada")' },
              ],
            },
          ],
        },
        {},
        mocks,
      );
      expect(debugData(result)).toEqual(expected);
    },
  );

  it("sets the response before RESPONSE masks and rules run", async () => {
    const result = await run(
      {
        masks: [
          {
            type: "RESPONSE",
            service_request: "core",
            field: "secret",
            apply_if: "core.response.status === 201",
          },
        ],
        validation_rules: [
          {
            type: "RESPONSE",
            service_request: "core",
            field: "core.response",
            rule: "_ !== null && _.status === 201 && _.payload.id === 7",
          },
        ],
        service_requests: [{ formula_variable: "core", system: "core", field_mappings: httpMappings }],
      },
      {},
      { core: { success: true, status: 201, payload: { id: 7, secret: "s3cr3t-value" } } },
    );
    expect(result.status).toBe("success");
    expect(result.record.items.filter((item) => item.kind === "VALIDATION_FAILURE")).toEqual([]);
    expect(requestItems(result)[0]?.response?.payload).toEqual({ id: 7, secret: "XXXXXXXXXXXX" });
  });

  const failures: [string, MockAnswers, Record<string, unknown>, number][] = [
    ["an adapter answer of success: false", { a: refused }, {}, 502],
    ["a thrown adapter error", {}, {}, 502],
    [
      "a cast error",
      { a: created },
      { field_mappings: [...httpMappings, { field: "n", value: '"abc"', value_type: "integer" }] },
      500,
    ],
    [
      "an error in a hook",
      { a: created },
      { after_execute_request_success_hook: 'throw new Error("boom")\n' },
      500,
    ],
    ["a failed REQUEST rule", { a: created }, { rule: "REQUEST" }, 422],
    ["a failed RESPONSE rule", { a: created }, { rule: "RESPONSE" }, 422],
  ];
  const failingRun = (mocks: MockAnswers, parts: Record<string, unknown>, abort: boolean | undefined) => {
    const { rule, ...requestParts } = parts;
    return run(
      {
        ...(rule
          ? {
              validation_rules: [
                { type: rule, service_request: "a", field: "a", rule: "false", message: `${rule} rule` },
              ],
            }
          : {}),
        service_requests: [
          {
            formula_variable: "a",
            system: "core",
            field_mappings: httpMappings,
            ...requestParts,
            ...(abort === undefined ? {} : { abort_after_execute_request_failure: abort }),
          },
          { formula_variable: "b", system: "transform", field_mappings: [{ field: "done", literal: true }] },
        ],
        on_success_hook: "output.payload = { b: b.response.payload }",
      },
      {},
      mocks,
    );
  };

  it.each(failures)(
    "goes on to the next service request after %s with abort_after_execute_request_failure: false",
    async (_case, mocks, parts) => {
      const result = await failingRun(mocks, parts, false);
      expect(result.status).toBe("success");
      expect(result.output).toEqual({ status: 200, headers: {}, payload: { b: { done: true } } });
      expect(requestItems(result).map((item) => item.label)).toEqual(["a", "b"]);
    },
  );

  it.each(
    failures.flatMap(([name, mocks, parts, status]) => [
      [`${name}, abort left out`, mocks, parts, status, undefined] as const,
      [`${name}, abort true`, mocks, parts, status, true] as const,
    ]),
  )("fails the run and skips later service requests after %s", async (_case, mocks, parts, status, abort) => {
    const result = await failingRun(mocks, parts, abort);
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(status);
    expect(result.output.payload).toEqual({ error: expect.objectContaining({ run_id: result.runId }) });
    expect(requestItems(result).map((item) => item.label)).toEqual(["a"]);
  });

  it.each<[boolean, number[], "success" | "failure"]>([
    [false, [0, 1, 2], "success"],
    [true, [0, 1], "failure"],
  ])(
    "with call_for_each and abort %s, a failed item is followed by calls %j",
    async (abort, sridxs, status) => {
      const result = await run(
        {
          service_requests: [
            {
              formula_variable: "core",
              system: "core",
              call_for_each: "[0, 1, 2]",
              abort_after_execute_request_failure: abort,
              field_mappings: httpMappings,
            },
          ],
          finally_hook: "output.payload = core.map((call) => call && call.response.success)",
        },
        {},
        { core: [created, refused, created] },
      );
      expect(result.status).toBe(status);
      expect(requestItems(result).map((item) => item.sridx)).toEqual(sridxs);
      expect(result.output.payload).toEqual(abort ? [true, false] : [true, false, true]);
    },
  );
});
