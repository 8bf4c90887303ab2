import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import type { MockAnswers } from "../../src/adapters/mock.js";
import { createScrubber } from "../../src/engine/masks.js";
import type { Item, ItemKind, RunInput, RunRecord } from "../../src/engine/types.js";
import { defaultProjectFile, runDefinition } from "../_helpers.js";

const masked = "XXXXXXXXXXXX";
const taxId = "123-45-6789";

/** A definition named `a` from its parts, written as YAML. */
const definition = (parts: Record<string, unknown>) => stringify({ name: "a", ...parts });

/** The mappings an SR on the http system `core` needs. */
const httpMappings = [
  { field: "service_path", literal: "/core/v1/persons" },
  { field: "method", literal: "POST" },
];

function itemsOf<K extends ItemKind>(record: RunRecord, kind: K): Extract<Item, { kind: K }>[] {
  return record.items.filter((item): item is Extract<Item, { kind: K }> => item.kind === kind);
}

function itemOf<K extends ItemKind>(record: RunRecord, kind: K): Extract<Item, { kind: K }> {
  const [item] = itemsOf(record, kind);
  if (!item) throw new Error(`the record has no ${kind} item`);
  return item;
}

const inputMask = (field: string, more: Record<string, unknown> = {}) => ({ type: "INPUT", field, ...more });

describe("INPUT masks", () => {
  it.each([
    ["a field", [inputMask("tax_id")], { tax_id: taxId, name: "Ada" }, { tax_id: masked, name: "Ada" }],
    [
      "a nested field",
      [inputMask("customer.tax_id")],
      { customer: { tax_id: taxId, name: "Ada" } },
      { customer: { tax_id: masked, name: "Ada" } },
    ],
    [
      "a field of every element with [*]",
      [inputMask("cards[*].number")],
      { cards: [{ number: "4111111111111111" }, { number: "5500000000000004", brand: "mc" }] },
      { cards: [{ number: masked }, { number: masked, brand: "mc" }] },
    ],
    [
      "every element of an array with [*]",
      [inputMask("accounts[*]")],
      { accounts: ["DE0012345678", "DE0087654321"] },
      { accounts: [masked, masked] },
    ],
    [
      "one element by index",
      [inputMask("cards[1].number")],
      { cards: [{ number: "4111111111111111" }, { number: "5500000000000004" }] },
      { cards: [{ number: "4111111111111111" }, { number: masked }] },
    ],
    [
      "a field of each element at apply_to_each",
      [inputMask("number", { apply_to_each: "accounts" })],
      { accounts: [{ number: "ACC-0001" }, { number: "ACC-0002" }] },
      { accounts: [{ number: masked }, { number: masked }] },
    ],
    [
      "the elements apply_if picks by mitem",
      [inputMask("number", { apply_to_each: "accounts", apply_if: "mitem.type === 'savings'" })],
      {
        accounts: [
          { type: "checking", number: "ACC-0001" },
          { type: "savings", number: "ACC-0002" },
        ],
      },
      {
        accounts: [
          { type: "checking", number: "ACC-0001" },
          { type: "savings", number: masked },
        ],
      },
    ],
    [
      "the elements apply_if picks by midx",
      [inputMask("number", { apply_to_each: "bank.accounts", apply_if: "midx > 0" })],
      { bank: { accounts: [{ number: "ACC-0001" }, { number: "ACC-0002" }, { number: "ACC-0003" }] } },
      { bank: { accounts: [{ number: "ACC-0001" }, { number: masked }, { number: masked }] } },
    ],
    ["a number", [inputMask("pin")], { pin: 987654, amount: 12 }, { pin: masked, amount: 12 }],
    [
      "an object",
      [inputMask("card")],
      { card: { number: "4111111111111111", cvv: "737" }, name: "Ada" },
      { card: masked, name: "Ada" },
    ],
    ["an array", [inputMask("codes")], { codes: [1, 2, 3] }, { codes: masked }],
    ["a boolean", [inputMask("pep")], { pep: true }, { pep: masked }],
    [
      "nothing when the path is missing",
      [inputMask("customer.tax_id")],
      { customer: { name: "Ada" } },
      { customer: { name: "Ada" } },
    ],
    [
      "with several masks in sequence order",
      [inputMask("b", { sequence: 20 }), inputMask("a", { sequence: 10 })],
      { a: "first-value", b: "second-value", c: "kept-value" },
      { a: masked, b: masked, c: "kept-value" },
    ],
  ])("mask %s in the INPUT item", async (_title, masks, payload, expected) => {
    const result = await runDefinition(definition({ masks }), { payload });
    expect(result.status).toBe("success");
    expect(itemOf(result.record, "INPUT").data.payload).toEqual(expected);
  });

  it("leaves the live value alone: a mapping copies the real value, the REQUEST item shows it masked by value", async () => {
    const result = await runDefinition(
      definition({
        masks: [inputMask("tax_id")],
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            field_mappings: [{ field: "body.taxId", value: "input.payload.tax_id" }],
          },
        ],
        on_success_hook: "output.payload = { real: t.response.payload.body.taxId === '123-45-6789' }",
      }),
      { payload: { tax_id: taxId } },
    );
    expect(result.status).toBe("success");
    const request = itemOf(result.record, "REQUEST");
    expect(request.request.payload).toEqual({ body: { taxId: masked } });
    expect(request.response?.payload).toEqual({ body: { taxId: masked } });
    expect(itemOf(result.record, "OUTPUT").data.payload).toEqual({ real: true });
    expect(JSON.stringify(result.record)).not.toContain(taxId);
  });

  it("masks the payload again after before_hook: a value the hook rewrote is masked by value", async () => {
    const result = await runDefinition(
      definition({
        before_hook: "input.payload.tax_id = input.payload.tax_id.replaceAll('-', '')",
        masks: [inputMask("tax_id")],
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            field_mappings: [{ field: "ssn", value: "input.payload.tax_id" }],
          },
        ],
      }),
      { payload: { tax_id: taxId } },
    );
    expect(itemOf(result.record, "INPUT").data.payload).toEqual({ tax_id: masked });
    expect(itemOf(result.record, "REQUEST").request.payload).toEqual({ ssn: masked });
    expect(JSON.stringify(result.record)).not.toContain("123456789");
  });

  it.each([
    [2, 2, "success"],
    [3, 3, "success"],
    [2, 3, "failure"],
    [0, 1, "failure"],
  ] as const)(
    "with %i values and abort_if_not_applied_x_times %i, the run ends in %s",
    async (count, minimum, status) => {
      const cards = Array.from({ length: count }, (_, index) => ({ number: `4111-0000-${index}` }));
      const result = await runDefinition(
        definition({ masks: [inputMask("cards[*].number", { abort_if_not_applied_x_times: minimum })] }),
        { payload: { cards } },
      );
      expect(result.status).toBe(status);
      expect(result.record.status).toBe(status);
      if (status === "failure") expect(result.output.status).toBe(500);
    },
  );
});

describe("RESPONSE masks", () => {
  const core = (more: Record<string, unknown> = {}) => ({
    formula_variable: "core",
    system: "core",
    field_mappings: httpMappings,
    ...more,
  });

  it("mask the SR's response payload in its REQUEST item; the live response keeps the value", async () => {
    const result = await runDefinition(
      definition({
        masks: [{ type: "RESPONSE", service_request: "core", field: "person.taxId" }],
        service_requests: [core()],
        on_success_hook: "output.payload = { tax: core.response.payload.person.taxId }",
      }),
      { payload: {} },
      { mocks: { core: { success: true, status: 200, payload: { person: { taxId, id: "P1" } } } } },
    );
    expect(result.status).toBe("success");
    expect(itemOf(result.record, "REQUEST").response?.payload).toEqual({
      person: { taxId: masked, id: "P1" },
    });
    expect(result.output.payload).toEqual({ tax: taxId });
    expect(itemOf(result.record, "OUTPUT").data.payload).toEqual({ tax: masked });
  });

  const threeCalls: MockAnswers = {
    core: ["4000-1111", "4000-2222", "4000-3333"].map((accountNumber) => ({
      success: true,
      payload: { accountNumber, currency: "EUR" },
    })),
  };

  it("mask each call of a call_for_each SR", async () => {
    const result = await runDefinition(
      definition({
        masks: [{ type: "RESPONSE", service_request: "core", field: "accountNumber" }],
        service_requests: [core({ call_for_each: "[1, 2, 3]" })],
      }),
      { payload: {} },
      { mocks: threeCalls },
    );
    const responses = itemsOf(result.record, "REQUEST").map((item) => item.response?.payload);
    expect(responses).toEqual([
      { accountNumber: masked, currency: "EUR" },
      { accountNumber: masked, currency: "EUR" },
      { accountNumber: masked, currency: "EUR" },
    ]);
  });

  it("see sridx and mitem in apply_if", async () => {
    const result = await runDefinition(
      definition({
        masks: [
          {
            type: "RESPONSE",
            service_request: "core",
            field: "accountNumber",
            apply_to_each: "accounts",
            apply_if: "sridx === 1 && mitem.currency === 'EUR'",
          },
        ],
        service_requests: [core({ call_for_each: "[1, 2]" })],
      }),
      { payload: {} },
      {
        mocks: {
          core: [0, 1].map((call) => ({
            success: true,
            payload: {
              accounts: [
                { accountNumber: `ACC-${call}-EUR`, currency: "EUR" },
                { accountNumber: `ACC-${call}-USD`, currency: "USD" },
              ],
            },
          })),
        },
      },
    );
    const responses = itemsOf(result.record, "REQUEST").map((item) => item.response?.payload);
    expect(responses).toEqual([
      {
        accounts: [
          { accountNumber: "ACC-0-EUR", currency: "EUR" },
          { accountNumber: "ACC-0-USD", currency: "USD" },
        ],
      },
      {
        accounts: [
          { accountNumber: masked, currency: "EUR" },
          { accountNumber: "ACC-1-USD", currency: "USD" },
        ],
      },
    ]);
  });

  it("put the run in failure when applied fewer times than abort_if_not_applied_x_times", async () => {
    const result = await runDefinition(
      definition({
        masks: [
          { type: "RESPONSE", service_request: "core", field: "missing", abort_if_not_applied_x_times: 1 },
        ],
        service_requests: [core()],
      }),
      { payload: {} },
      { mocks: { core: { success: true, payload: { present: "value" } } } },
    );
    expect(result.status).toBe("failure");
  });
});

describe("masking by value", () => {
  const secret = "s3cr3t-Value-42";

  it.each([
    ["a DEBUG item", "historize('token ' + input.payload.secret)", "DEBUG"],
    ["a DEBUG item's label", "historize(1, 'label ' + input.payload.secret)", "DEBUG"],
    ["a LOG item", "console.warn('the secret is', input.payload.secret + '!')", "LOG"],
    ["a FAILURE message", "throw new Error('cannot use ' + input.payload.secret)", "FAILURE"],
    [
      "the OUTPUT payload",
      "output.payload = { note: `got ${input.payload.secret} twice: ${input.payload.secret}` }",
      "OUTPUT",
    ],
    ["the OUTPUT headers", "output.headers = { 'x-echo': 'v=' + input.payload.secret }", "OUTPUT"],
  ] as const)("hides a masked value inside %s", async (_title, hook, kind) => {
    const result = await runDefinition(definition({ masks: [inputMask("secret")], on_success_hook: hook }), {
      payload: { secret },
    });
    const text = JSON.stringify(itemOf(result.record, kind));
    expect(text).toContain(masked);
    expect(JSON.stringify(result.record)).not.toContain(secret);
  });

  it("hides a masked number wherever its digits occur", async () => {
    const result = await runDefinition(
      definition({
        masks: [inputMask("pin")],
        on_success_hook: "output.payload = { pin: input.payload.pin, text: 'pin=' + input.payload.pin }",
      }),
      { payload: { pin: 918273 } },
    );
    expect(result.output.payload).toEqual({ pin: 918273, text: "pin=918273" });
    expect(itemOf(result.record, "OUTPUT").data.payload).toEqual({ pin: masked, text: `pin=${masked}` });
  });

  it("hides the values inside a masked object wherever they are copied", async () => {
    const result = await runDefinition(
      definition({
        masks: [inputMask("card")],
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            field_mappings: [{ field: "card", value: "input.payload.card" }],
          },
        ],
      }),
      { payload: { card: { number: "4111111111111111", holder: "Ada Lovelace" } } },
    );
    const text = JSON.stringify(result.record);
    expect(text).not.toContain("4111111111111111");
    expect(text).not.toContain("Ada Lovelace");
  });

  it("leaves values shorter than 4 characters where they are copied", async () => {
    const result = await runDefinition(
      definition({
        masks: [inputMask("cvv")],
        on_success_hook: "output.payload = { cvv: input.payload.cvv }",
      }),
      { payload: { cvv: "737" } },
    );
    expect(itemOf(result.record, "INPUT").data.payload).toEqual({ cvv: masked });
    expect(itemOf(result.record, "OUTPUT").data.payload).toEqual({ cvv: "737" });
  });
});

describe("secrets from the environment", () => {
  const token = "env-Token-0042";

  it("never records a secret of the project file, also when a payload carries it", async () => {
    const project = `${defaultProjectFile}    headers:\n      X-Token: \${env:BASS_T}\n`;
    const result = await runDefinition(
      definition({ on_success_hook: "output.payload = { echoed: `token ${input.payload.token}` }" }),
      { payload: { token } },
      { project, env: { BASS_T: token } },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual({ echoed: `token ${token}` });
    expect(itemOf(result.record, "INPUT").data.payload).toEqual({ token: masked });
    expect(JSON.stringify(result.record)).not.toContain(token);
  });

  it("never records a secret a definition takes from the environment", async () => {
    const result = await runDefinition(
      definition({
        before_hook: "historize('token ${env:BASS_T}')",
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            field_mappings: [{ field: "headers.X-Token", literal: "${env:BASS_T}" }],
          },
        ],
        on_success_hook: "output.payload = t.response.payload",
      }),
      { payload: {} },
      { env: { BASS_T: token } },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual({ headers: { "X-Token": token } });
    expect(itemOf(result.record, "DEBUG").data).toBe(`token ${masked}`);
    expect(itemOf(result.record, "REQUEST").request.payload).toEqual({ headers: { "X-Token": masked } });
    expect(JSON.stringify(result.record)).not.toContain(token);
  });
});

describe("sensitive headers", () => {
  const input: RunInput = {
    payload: {},
    method: "POST",
    headers: {
      Authorization: "Bearer abc.def.ghi",
      "Proxy-Authorization": "Basic dXNlcjpwYXNz",
      Cookie: "session=42",
      "Set-Cookie": "id=a3fWa; Secure",
      "X-Api-Key": "key-1234567",
      "X-Request-Id": "req-1",
    },
  };

  it.each(["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"])(
    "masks the value of %s in the INPUT item",
    async (name) => {
      const result = await runDefinition(definition({}), input);
      expect(itemOf(result.record, "INPUT").data.headers[name]).toBe(masked);
    },
  );

  it("keeps other headers, and the live run sees the real values", async () => {
    const result = await runDefinition(
      definition({ on_success_hook: "output.payload = { auth: input.headers.authorization.length }" }),
      input,
    );
    expect(itemOf(result.record, "INPUT").data.headers["x-request-id"]).toBe("req-1");
    expect(result.output.payload).toEqual({ auth: "Bearer abc.def.ghi".length });
  });

  it("masks them under any case in output headers", async () => {
    const result = await runDefinition(
      definition({ on_success_hook: "output.headers = { 'Set-Cookie': 'session=abc', 'X-Other': 'shown' }" }),
      { payload: {} },
    );
    expect(itemOf(result.record, "OUTPUT").data.headers).toEqual({
      "Set-Cookie": masked,
      "X-Other": "shown",
    });
  });
});

describe("createScrubber", () => {
  it("masks its own values, whichever scrubbers were made since, and sensitive headers always", () => {
    const first = createScrubber(["abcd-1234", "hunter22"]);
    const second = createScrubber(["wxyz-9876"]);
    const none = createScrubber(["ab", ""]);
    const value = () => ({
      a: "abcd-1234 and wxyz-9876",
      hunter22: 1,
      authorization: "Bearer t",
      cookie: "c",
    });
    expect(first(value())).toEqual({
      a: "XXXXXXXXXXXX and wxyz-9876",
      XXXXXXXXXXXX: 1,
      authorization: "XXXXXXXXXXXX",
      cookie: "XXXXXXXXXXXX",
    });
    expect(second(value())).toEqual({
      a: "abcd-1234 and XXXXXXXXXXXX",
      hunter22: 1,
      authorization: "XXXXXXXXXXXX",
      cookie: "XXXXXXXXXXXX",
    });
    expect(none(value())).toEqual({ ...value(), authorization: "XXXXXXXXXXXX", cookie: "XXXXXXXXXXXX" });
    expect(createScrubber(["wxyz-9876"])({ Authorization: "x", "X-Api-Key": "k", cookies: "kept" })).toEqual({
      Authorization: "XXXXXXXXXXXX",
      "X-Api-Key": "XXXXXXXXXXXX",
      cookies: "kept",
    });
  });
});
