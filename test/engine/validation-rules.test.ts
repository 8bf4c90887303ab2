import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { MockAnswers } from "../../src/adapters/mock.js";
import { runDefinition } from "../_helpers.js";

type Result = Awaited<ReturnType<typeof runDefinition>>;
type Rule = Record<string, unknown>;

/** Runs a definition given as an object. */
function run(definition: Record<string, unknown>, payload: unknown = {}, mocks: MockAnswers = {}) {
  return runDefinition(stringify({ name: "a", ...definition }), { payload }, { mocks });
}

/** Runs INPUT rules ahead of one echo service request `t`; on success the output payload is "called". */
function runInputRules(rules: Rule[], payload: unknown, parts: Record<string, unknown> = {}) {
  return run(
    {
      validation_rules: rules.map((rule) => ({ type: "INPUT", ...rule })),
      service_requests: [{ formula_variable: "t", system: "transform" }],
      on_success_hook: 'output.payload = t === null ? "not called" : "called"',
      ...parts,
    },
    payload,
  );
}

const failures = (result: Result) =>
  result.record.items.flatMap((item) =>
    item.kind === "VALIDATION_FAILURE"
      ? [{ label: item.label, message: item.message, vridx: item.vridx }]
      : [],
  );
const requestItems = (result: Result) => result.record.items.filter((item) => item.kind === "REQUEST");
const debugLabels = (result: Result) =>
  result.record.items.flatMap((item) => (item.kind === "DEBUG" ? [item.label] : []));

/** The §12 default output after failed validation. */
const validationFailed = (result: Result, details: string[]) => ({
  status: 422,
  headers: {},
  payload: { error: expect.objectContaining({ run_id: result.runId, details }) },
});

describe("INPUT validation rules (SPEC §4.4 step 4)", () => {
  const personRules: Rule[] = [
    {
      field: "input.payload.email",
      rule: "typeof _ === 'string' && _.includes('@')",
      message: "email must be an e-mail address",
    },
    { field: "input.payload.age", rule: "_ >= 18" },
    { field: "input.payload.name", rule: "_ !== undefined", message: "name is required" },
  ];
  const good = { email: "ada@example.com", age: 36, name: "Ada" };

  it.each<[string, Record<string, unknown>, [string, string][]]>([
    ["passes a good input", good, []],
    [
      "fails one rule",
      { ...good, email: "ada" },
      [["input.payload.email", "email must be an e-mail address"]],
    ],
    [
      "gives the default message",
      { ...good, age: 12 },
      [["input.payload.age", "validation failed: input.payload.age"]],
    ],
    [
      "runs every rule and records each failure",
      { age: 12 },
      [
        ["input.payload.email", "email must be an e-mail address"],
        ["input.payload.age", "validation failed: input.payload.age"],
        ["input.payload.name", "name is required"],
      ],
    ],
    [
      "runs the rules after a failed one",
      { email: "x", age: 40, name: "Bo" },
      [["input.payload.email", "email must be an e-mail address"]],
    ],
  ])("%s", async (_case, payload, expected) => {
    const result = await runInputRules(personRules, payload);
    expect(failures(result)).toEqual(expected.map(([label, message]) => ({ label, message, vridx: null })));
    if (expected.length === 0) {
      expect(result.status).toBe("success");
      expect(result.output.payload).toBe("called");
      return;
    }
    expect(result.status).toBe("failure");
    expect(result.output).toEqual(
      validationFailed(
        result,
        expected.map(([, message]) => message),
      ),
    );
    expect(requestItems(result)).toEqual([]);
  });

  it.each<[string, Rule, string]>([
    ["left out", {}, "validation failed: input.payload.email"],
    ["null", { message: null }, "validation failed: input.payload.email"],
    [
      "a multi-line field",
      { field: "const e = input.payload.email\nreturn e\n" },
      "validation failed: const e = input.payload.email\nreturn e\n",
    ],
    ["given", { message: "bad e-mail" }, "bad e-mail"],
  ])("uses the message when it is %s", async (_case, parts, message) => {
    const result = await runInputRules([{ field: "input.payload.email", rule: "false", ...parts }], {
      email: "x",
    });
    expect(failures(result)).toEqual([{ label: parts.field ?? "input.payload.email", message, vridx: null }]);
    expect(result.output).toEqual(validationFailed(result, [message]));
  });

  it.each<[string, (number | undefined)[], string[]]>([
    ["ascending sequence", [30, 10, 20], ["b", "c", "a"]],
    ["ties in file order", [5, 5, 5], ["a", "b", "c"]],
    ["a missing sequence as 0", [undefined, -1, undefined], ["b", "a", "c"]],
  ])("runs rules in %s", async (_case, sequences, order) => {
    const rules = sequences.map((sequence, index) => ({
      field: `"${["a", "b", "c"][index]}"`,
      rule: "false",
      ...(sequence === undefined ? {} : { sequence }),
    }));
    const result = await runInputRules(rules, {});
    expect(failures(result).map((failure) => failure.label)).toEqual(order.map((name) => `"${name}"`));
  });

  it.each<[string, string, string, Record<string, unknown>, boolean]>([
    ["a payload field", "input.payload.a", "_ === 1", { a: 1 }, true],
    ["a payload field that fails", "input.payload.a", "_ === 2", { a: 1 }, false],
    ["an expression", "input.payload.a + input.payload.b", "_ === 3", { a: 1, b: 2 }, true],
    ["a missing field", "input.payload.missing", "_ === undefined", {}, true],
    ["a multi-line cell", "const n = input.payload.a\nreturn n * 10\n", "_ === 10", { a: 1 }, true],
    ["a truthy value", '"text"', "_", {}, true],
    ["a falsy value", "0", "_", {}, false],
    ["an object", "input.payload", "_.a === 1 && Object.keys(_).length === 1", { a: 1 }, true],
  ])("makes the value of %s `_` inside the rule", async (_case, field, rule, payload, passes) => {
    const result = await runInputRules([{ field, rule }], payload);
    expect(result.status).toBe(passes ? "success" : "failure");
    expect(failures(result)).toHaveLength(passes ? 0 : 1);
  });

  const lines = [{ amount: 5 }, { amount: -1 }, { amount: 0 }, { amount: 3 }];

  it.each<[string, Rule, unknown, number[]]>([
    ["vritem", { field: "vritem.amount" }, lines, [1, 2]],
    ["vridx", { field: "input.payload.lines[vridx].amount" }, lines, [1, 2]],
    ["no items", { field: "vritem.amount" }, [], []],
    ["every item failing", { field: "vritem.amount" }, [{ amount: 0 }, { amount: -2 }], [0, 1]],
  ])(
    "apply_to_each binds %s and records one failure per failing element",
    async (_case, rule, items, vridxs) => {
      const result = await runInputRules(
        [
          {
            apply_to_each: "input.payload.lines",
            rule: "_ > 0",
            message: "amount must be positive",
            ...rule,
          },
        ],
        { lines: items },
      );
      expect(failures(result)).toEqual(
        vridxs.map((vridx) => ({ label: rule.field, message: "amount must be positive", vridx })),
      );
      expect(result.status).toBe(vridxs.length ? "failure" : "success");
      if (vridxs.length)
        expect(result.output).toEqual(
          validationFailed(
            result,
            vridxs.map(() => "amount must be positive"),
          ),
        );
    },
  );

  it.each<[string, Rule, Record<string, unknown>, (number | null)[]]>([
    ["false skips the rule", { apply_if: "false", field: "1" }, {}, []],
    ["true applies it", { apply_if: "true", field: "1" }, {}, [null]],
    ["reads the input", { apply_if: "input.payload.check", field: "1" }, { check: false }, []],
    [
      "is evaluated before the field, so a skipped field is never read",
      { apply_if: "input.payload.deep !== undefined", field: "input.payload.deep.value" },
      {},
      [],
    ],
    [
      "decides per element with vritem",
      { apply_to_each: "input.payload.lines", apply_if: 'vritem.kind === "debit"', field: "vritem.kind" },
      { lines: [{ kind: "debit" }, { kind: "credit" }, { kind: "debit" }] },
      [0, 2],
    ],
    [
      "decides per element with vridx",
      { apply_to_each: "input.payload.lines", apply_if: "vridx > 0", field: "vritem.kind" },
      { lines: [{ kind: "debit" }, { kind: "credit" }] },
      [1],
    ],
  ])("apply_if %s", async (_case, rule, payload, vridxs) => {
    const result = await runInputRules([{ rule: "false", message: "failed", ...rule }], payload);
    expect(failures(result).map((failure) => failure.vridx)).toEqual(vridxs);
    expect(result.status).toBe(vridxs.length ? "failure" : "success");
  });

  it("records a failure of a rule with abort_on_failure: false but does not fail the run", async () => {
    const result = await runInputRules(
      [
        {
          field: "input.payload.nickname",
          rule: "_ !== undefined",
          message: "no nickname",
          abort_on_failure: false,
        },
      ],
      {},
    );
    expect(failures(result)).toEqual([
      { label: "input.payload.nickname", message: "no nickname", vridx: null },
    ]);
    expect(result.status).toBe("success");
    expect(result.output).toEqual({ status: 200, headers: {}, payload: "called" });
    expect(requestItems(result)).toHaveLength(1);
  });

  it("fails the run when any failed rule aborts, after recording every failure", async () => {
    const result = await runInputRules(
      [
        { field: "input.payload.a", rule: "false", message: "aborting", abort_on_failure: true },
        { field: "input.payload.b", rule: "false", message: "not aborting", abort_on_failure: false },
      ],
      {},
    );
    expect(failures(result).map((failure) => failure.message)).toEqual(["aborting", "not aborting"]);
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(422);
    expect(result.output.payload).toEqual({
      error: expect.objectContaining({ details: expect.arrayContaining(["aborting"]) }),
    });
    expect(requestItems(result)).toEqual([]);
  });

  it.each<[string, Rule, string[]]>([
    [
      "runs pass_hook on a pass and fail_hook, seeing vrmsg, on a failure",
      { message: "must be positive" },
      ["pass 0 1", "fail 1 -2 must be positive", "pass 2 3", "fail 3 -4 must be positive"],
    ],
    [
      "gives fail_hook the default message as vrmsg",
      {},
      ["pass 0 1", "fail 1 -2 validation failed: vritem", "pass 2 3", "fail 3 -4 validation failed: vritem"],
    ],
  ])("%s", async (_case, rule, trace) => {
    const result = await runInputRules(
      [
        {
          field: "vritem",
          rule: "_ > 0",
          apply_to_each: "input.payload.numbers",
          pass_hook: "input.payload.trace.push(`pass ${vridx} ${_}`)",
          fail_hook: "input.payload.trace.push(`fail ${vridx} ${_} ${vrmsg}`)",
          ...rule,
        },
      ],
      { numbers: [1, -2, 3, -4], trace: [] },
      { finally_hook: "output.payload = input.payload.trace" },
    );
    expect(result.output.payload).toEqual(trace);
  });

  it("checks the live input while masks hide it in the record", async () => {
    const result = await runInputRules(
      [{ field: "input.payload.tax_id", rule: '_ === "12345678"' }],
      { tax_id: "12345678" },
      { masks: [{ type: "INPUT", field: "tax_id" }] },
    );
    expect(result.status).toBe("success");
    const input = result.record.items.find((item) => item.kind === "INPUT");
    expect(input?.kind === "INPUT" && input.data.payload).toEqual({ tax_id: "XXXXXXXXXXXX" });
  });
});

describe("REQUEST and RESPONSE validation rules (SPEC §4.6)", () => {
  const hooks = [
    "after_prepare_request_success_hook",
    "after_prepare_request_failure_hook",
    "before_execute_request_hook",
    "after_execute_request_success_hook",
    "after_execute_request_failure_hook",
    "after_overall_success_hook",
    "after_overall_failure_hook",
  ];
  const tracedHooks = Object.fromEntries(hooks.map((hook) => [hook, `historize(null, "${hook}")`]));
  const coreRequest = (rules: Rule[], parts: Record<string, unknown> = {}) => ({
    validation_rules: rules.map((rule) => ({ service_request: "core", ...rule })),
    service_requests: [
      {
        formula_variable: "core",
        system: "core",
        ...tracedHooks,
        field_mappings: [
          { field: "service_path", literal: "/core/v1/payments" },
          { field: "method", literal: "POST" },
          { field: "body.amount", value: "input.payload.amount" },
        ],
        ...parts,
      },
    ],
  });
  const amountRule: Rule = {
    type: "REQUEST",
    field: "core.request.payload.body.amount",
    rule: "_ > 0",
    message: "amount must be positive",
  };
  const idRule: Rule = {
    type: "RESPONSE",
    field: "core.response.payload.id",
    rule: "_ != null",
    message: "the core gave no id",
  };
  const paid = { core: { success: true, status: 201, payload: { id: 9 } } };
  const paidWithoutId = { core: { success: true, status: 201, payload: {} } };
  const successHooks = [
    "after_prepare_request_success_hook",
    "before_execute_request_hook",
    "after_execute_request_success_hook",
    "after_overall_success_hook",
  ];

  it.each<[string, Rule, number, MockAnswers, string[], string[]]>([
    ["a passing REQUEST rule", amountRule, 5, paid, successHooks, []],
    [
      "a failing REQUEST rule fails the prepare step",
      amountRule,
      -5,
      paid,
      ["after_prepare_request_failure_hook", "after_overall_failure_hook"],
      ["amount must be positive"],
    ],
    ["a passing RESPONSE rule", idRule, 5, paid, successHooks, []],
    [
      "a failing RESPONSE rule leads to after_execute_request_failure_hook",
      idRule,
      5,
      paidWithoutId,
      [
        "after_prepare_request_success_hook",
        "before_execute_request_hook",
        "after_execute_request_failure_hook",
        "after_overall_failure_hook",
      ],
      ["the core gave no id"],
    ],
  ])("%s", async (_case, rule, amount, mocks, trace, messages) => {
    const result = await run(coreRequest([rule]), { amount }, mocks);
    expect(debugLabels(result)).toEqual(trace);
    expect(failures(result)).toEqual(
      messages.map((message) => ({ label: rule.field, message, vridx: null })),
    );
    if (messages.length) {
      expect(result.status).toBe("failure");
      expect(result.output).toEqual(validationFailed(result, messages));
    } else {
      expect(result.status).toBe("success");
      expect(result.output.status).toBe(200);
    }
  });

  it("records the call a REQUEST rule stopped with its request and no response", async () => {
    const result = await run(coreRequest([amountRule]), { amount: -5 });
    expect(requestItems(result)).toEqual([
      expect.objectContaining({
        label: "core",
        request: {
          service_name: "n/a",
          payload: { service_path: "/core/v1/payments", method: "POST", body: { amount: -5 } },
        },
        response: null,
      }),
    ]);
  });

  it.each<[string, Rule, MockAnswers]>([
    ["REQUEST", { ...amountRule, abort_on_failure: false }, paid],
    ["RESPONSE", { ...idRule, abort_on_failure: false }, paidWithoutId],
  ])("lets the call go on after a %s rule with abort_on_failure: false", async (_case, rule, mocks) => {
    const result = await run(coreRequest([rule]), { amount: -5 }, mocks);
    expect(failures(result)).toHaveLength(1);
    expect(result.status).toBe("success");
    expect(result.output.status).toBe(200);
    expect(requestItems(result)[0]).toMatchObject({ response: { success: true } });
  });

  it("fails with 422 and every failed message after several failing REQUEST rules", async () => {
    const result = await run(
      coreRequest([
        amountRule,
        {
          ...amountRule,
          field: "core.request.payload.body.currency",
          rule: "_ === 'EUR'",
          message: "EUR only",
        },
      ]),
      { amount: -5 },
    );
    expect(failures(result).map((failure) => failure.message)).toEqual([
      "amount must be positive",
      "EUR only",
    ]);
    expect(result.output).toEqual(validationFailed(result, ["amount must be positive", "EUR only"]));
  });

  it("binds sritem and sridx in REQUEST and RESPONSE rules of each call", async () => {
    const result = await run(
      {
        validation_rules: [
          { type: "REQUEST", service_request: "core", field: "sritem", rule: "_ > 0", message: "request" },
          {
            type: "RESPONSE",
            service_request: "core",
            field: "core[sridx].response.payload.n",
            rule: "_ === sritem * 10",
            message: "response",
            fail_hook: "historize(sridx, vrmsg)",
          },
        ],
        service_requests: [
          {
            formula_variable: "core",
            system: "core",
            call_for_each: "input.payload.items",
            abort_after_execute_request_failure: false,
            field_mappings: [
              { field: "service_path", literal: "/core/v1/items" },
              { field: "method", literal: "POST" },
            ],
          },
        ],
      },
      { items: [1, -1, 2, 3] },
      {
        core: [
          { success: true, payload: { n: 10 } },
          { success: true, payload: { n: -10 } },
          { success: true, payload: { n: 21 } },
          { success: true, payload: { n: 30 } },
        ],
      },
    );
    expect(failures(result)).toEqual([
      { label: "sritem", message: "request", vridx: null },
      { label: "core[sridx].response.payload.n", message: "response", vridx: null },
    ]);
    expect(
      result.record.items.flatMap((item) => (item.kind === "DEBUG" ? [[item.label, item.data]] : [])),
    ).toEqual([["response", 2]]);
    expect(
      requestItems(result).map((item) => item.kind === "REQUEST" && [item.sridx, item.response !== null]),
    ).toEqual([
      [0, true],
      [1, false],
      [2, true],
      [3, true],
    ]);
    expect(result.status).toBe("success");
  });
});
