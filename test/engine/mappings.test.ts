import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runDefinition } from "../_helpers.js";

type Mapping = Record<string, unknown>;

/**
 * Runs one echo service request `t` with these field mappings; on success the output payload is what the
 * echo answered, which is the request payload the mappings built.
 */
function runMappings(fieldMappings: Mapping[], payload: unknown = {}, parts: Record<string, unknown> = {}) {
  return runDefinition(
    stringify({
      name: "a",
      ...parts,
      service_requests: [{ formula_variable: "t", system: "transform", field_mappings: fieldMappings }],
      on_success_hook: "output.payload = t.response.payload",
    }),
    { payload },
  );
}

/** The request payload the mappings built; the run must succeed. */
async function buildPayload(
  fieldMappings: Mapping[],
  payload: unknown = {},
  parts: Record<string, unknown> = {},
) {
  const result = await runMappings(fieldMappings, payload, parts);
  expect(result.status).toBe("success");
  return result.output.payload;
}

function failureMessages(result: Awaited<ReturnType<typeof runDefinition>>): string[] {
  return result.record.items.flatMap((item) => (item.kind === "FAILURE" ? [item.error.message] : []));
}

describe("field mappings (SPEC §4.5)", () => {
  it.each<[string, (number | undefined)[], string[]]>([
    ["ascending sequence", [30, 10, 20], ["b", "c", "a"]],
    ["ties in file order", [10, 10, 10], ["a", "b", "c"]],
    ["a missing sequence as 0", [undefined, 5, undefined], ["a", "c", "b"]],
    ["ties among others", [2, 1, 2, 1], ["b", "d", "a", "c"]],
  ])("runs mappings in %s", async (_case, sequences, order) => {
    const names = ["a", "b", "c", "d"];
    const mappings = sequences.map((sequence, index) => ({
      field: "last",
      value: `(input.payload.seen.push("${names[index]}"), "${names[index]}")`,
      ...(sequence === undefined ? {} : { sequence }),
    }));
    const result = await runDefinition(
      stringify({
        name: "a",
        service_requests: [{ formula_variable: "t", system: "transform", field_mappings: mappings }],
        on_success_hook: "output.payload = { seen: input.payload.seen, last: t.response.payload.last }",
      }),
      { payload: { seen: [] } },
    );
    expect(result.output.payload).toEqual({ seen: order, last: order.at(-1) });
  });

  it.each<[string, Record<string, unknown>, unknown]>([
    ["a", {}, { a: 1 }],
    ["a.b", {}, { a: { b: 1 } }],
    ["a.b.c", {}, { a: { b: { c: 1 } } }],
    ["a[0]", {}, { a: [1] }],
    ["a[0][0]", {}, { a: [[1]] }],
    ["a[0].b", {}, { a: [{ b: 1 }] }],
    ["a.b[0].c", {}, { a: { b: [{ c: 1 }] } }],
    ['a["key.with.dots"]', {}, { a: { "key.with.dots": 1 } }],
    ["a['key.with.dots'].b", {}, { a: { "key.with.dots": { b: 1 } } }],
    ["items[input.payload.i].code", { i: 0 }, { items: [{ code: 1 }] }],
    ["items[input.payload.k].code", { k: "x" }, { items: { x: { code: 1 } } }],
    ["m[input.payload.k + '.' + input.payload.i]", { k: "x", i: 2 }, { m: { "x.2": 1 } }],
  ])("writes to %s, creating what is missing", async (field, payload, expected) => {
    expect(await buildPayload([{ field, literal: 1 }], payload)).toEqual(expected);
  });

  it("writes next to what earlier mappings created", async () => {
    const built = await buildPayload([
      { field: "a.b", literal: 1 },
      { field: "a.c[0]", literal: 2 },
      { field: "a.c[1]", literal: 3 },
      { field: 'a["d.e"]', literal: 4 },
    ]);
    expect(built).toEqual({ a: { b: 1, c: [2, 3], "d.e": 4 } });
  });

  it.each(["__proto__", "constructor", "prototype"])(
    "writes a %s key from input data as a plain own key",
    async (key) => {
      const built = (await buildPayload([{ field: "m[input.payload.k].polluted", literal: 1 }], {
        k: key,
      })) as {
        m: object;
      };
      expect(Object.keys(built.m)).toEqual([key]);
      expect(Object.getPrototypeOf(built.m)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it('builds the SPEC example: fm_body[fidx].test_key over ["a", "b"]', async () => {
    const built = await buildPayload([
      { field: "fm_body[fidx].test_key", include_for_each: '["a", "b"]', value: "fitem" },
    ]);
    expect(built).toEqual({ fm_body: [{ test_key: "a" }, { test_key: "b" }] });
  });

  it.each<[string, Mapping, unknown]>([
    [
      "binds fitem and fidx",
      { field: "out[fidx]", value: "`${fidx}:${fitem}`" },
      { out: ["0:x", "1:y", "2:z"] },
    ],
    [
      "keeps items include_if lets through",
      { field: 'out["k" + fidx]', value: "fitem", include_if: 'fitem !== "y"' },
      { out: { k0: "x", k2: "z" } },
    ],
    [
      "evaluates the field per item",
      { field: "out[fitem].at", value: "fidx" },
      { out: { x: { at: 0 }, y: { at: 1 }, z: { at: 2 } } },
    ],
  ])("include_for_each %s", async (_case, mapping, expected) => {
    const built = await buildPayload([{ include_for_each: "input.payload.list", ...mapping }], {
      list: ["x", "y", "z"],
    });
    expect(built).toEqual(expected);
  });

  it("writes nothing for an empty include_for_each", async () => {
    const built = await buildPayload(
      [
        { field: "kept", literal: 1 },
        { field: "out[fidx]", include_for_each: "input.payload.list", value: "fitem" },
      ],
      { list: [] },
    );
    expect(built).toEqual({ kept: 1 });
  });

  it.each<[string, string, boolean]>([
    ["true", "true", true],
    ["a truthy value", '"yes"', true],
    ["false", "false", false],
    ["a falsy value", "0", false],
    ["an input flag", "input.payload.on", false],
  ])("include_if of %s decides whether the field is written", async (_case, includeIf, written) => {
    const built = await buildPayload([{ field: "x", literal: 1, include_if: includeIf }], { on: false });
    expect(Object.hasOwn(built as object, "x")).toBe(written);
  });

  it("evaluates include_if before the value, and the value before the field", async () => {
    const result = await runDefinition(
      stringify({
        name: "a",
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            field_mappings: [
              {
                field: "skipped",
                include_if: "false",
                value: '(input.payload.trace.push("skipped value"), 1)',
              },
              {
                field: 'out[input.payload.trace.push("field"), input.payload.trace.join(">")]',
                include_if: '(input.payload.trace.push("include_if"), true)',
                value: '(input.payload.trace.push("value"), 1)',
              },
            ],
          },
        ],
        on_success_hook: "output.payload = t.response.payload",
      }),
      { payload: { trace: [] } },
    );
    expect(result.output.payload).toEqual({ out: { "include_if>value>field": 1 } });
  });

  it.each<[string, Mapping, unknown]>([
    ["a literal string is written as it is", { literal: "input.payload.v" }, "input.payload.v"],
    ["a value is evaluated", { value: "input.payload.v" }, 7],
    ["a literal object is written as it is", { literal: { a: [1, { b: null }] } }, { a: [1, { b: null }] }],
    ["a literal number", { literal: 12.5 }, 12.5],
    ["a literal boolean", { literal: false }, false],
    ["a multi-line value returns", { value: "const n = input.payload.v\nreturn n * 2\n" }, 14],
  ])("%s", async (_case, source, expected) => {
    expect(await buildPayload([{ field: "x", ...source }], { v: 7 })).toEqual({ x: expected });
  });

  it.each<[string, unknown, unknown]>([
    ["string", "x", "x"],
    ["string", 12, "12"],
    ["string", true, "true"],
    ["integer", 42, 42],
    ["integer", "42", 42],
    ["integer", "-7", -7],
    ["number", 12.5, 12.5],
    ["number", "12.5", 12.5],
    ["number", "-3", -3],
    ["decimal", 12.3, "12.3"],
    ["decimal", "12.30", "12.30"],
    ["decimal", 5, "5"],
    ["decimal", "-0.50", "-0.50"],
    ["decimal", "12345678901234567890.12", "12345678901234567890.12"],
    ["decimal", "0.10000000000000000001", "0.10000000000000000001"],
    ["decimal", 1e-7, "0.0000001"],
    ["decimal", "00012.50", "12.50"],
    ["boolean", true, true],
    ["boolean", false, false],
    ["boolean", "true", true],
    ["boolean", "false", false],
    ["object", { a: 1 }, { a: 1 }],
    ["array", [1, "b"], [1, "b"]],
    ["array", [], []],
  ])("casts to %s: %j → %j", async (valueType, value, expected) => {
    const built = await buildPayload([{ field: "x", value: "input.payload.v", value_type: valueType }], {
      v: value,
    });
    expect(built).toEqual({ x: expected });
  });

  it("casts a literal too", async () => {
    const built = await buildPayload([
      { field: "n", literal: "42", value_type: "integer" },
      { field: "d", literal: "7.50", value_type: "decimal" },
    ]);
    expect(built).toEqual({ n: 42, d: "7.50" });
  });

  it.each<[string, unknown, string]>([
    ["integer", "abc", '"abc"'],
    ["integer", "", '""'],
    ["number", "abc", '"abc"'],
    ["decimal", "abc", '"abc"'],
    ["decimal", "12.3.4", '"12.3.4"'],
    ["boolean", "maybe", '"maybe"'],
    ["object", "abc", '"abc"'],
    ["array", "abc", '"abc"'],
    ["array", { a: 1 }, '{"a":1}'],
  ])("fails the call when a value cannot be cast to %s: %j", async (valueType, value, shown) => {
    const result = await runMappings([{ field: "body.x", value: "input.payload.v", value_type: valueType }], {
      v: value,
    });
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(500);
    expect(failureMessages(result)).toEqual([
      `service_requests[0].field_mappings[0]: cannot cast ${shown} to ${valueType} (field body.x)`,
    ]);
  });

  it("names the mapping and its field when a cast fails, records the call without a response and fails with 500", async () => {
    const message =
      'service_requests[0].field_mappings[0]: cannot cast "abc" to integer (field body.amount_units)';
    const result = await runDefinition(
      stringify({
        name: "a",
        service_requests: [
          {
            formula_variable: "core",
            system: "core",
            field_mappings: [
              { field: "body.amount_units", value: "input.payload.amount", value_type: "integer" },
              { field: "service_path", literal: "/core/v1/payments" },
              { field: "method", literal: "POST" },
            ],
          },
        ],
      }),
      { payload: { amount: "abc" } },
    );
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(500);
    const requests = result.record.items.filter((item) => item.kind === "REQUEST");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ label: "core", sridx: null, response: null });
    const failures = result.record.items.filter((item) => item.kind === "FAILURE");
    expect(failures).toEqual([expect.objectContaining({ error: expect.objectContaining({ message }) })]);
    expect(result.output.payload).toEqual({
      error: expect.objectContaining({ run_id: result.runId, details: [message] }),
    });
  });

  it.each<[string, Mapping, unknown]>([
    ["null", { value: "null", nullable: true }, null],
    ["undefined as null", { value: "undefined", nullable: true }, null],
    ["a missing input field as null", { value: "input.payload.missing", nullable: true }, null],
    ["null, not cast, with a value_type", { value: "null", nullable: true, value_type: "integer" }, null],
    [
      "undefined, not cast, with a value_type",
      { value: "undefined", nullable: true, value_type: "string" },
      null,
    ],
    ["0", { value: "0" }, 0],
    ["an empty string", { value: '""' }, ""],
    ["false", { value: "false", nullable: false }, false],
  ])("writes %s", async (_case, source, expected) => {
    const built = await buildPayload([{ field: "x", ...source }]);
    expect(built).toEqual({ x: expected });
    expect(Object.hasOwn(built as object, "x")).toBe(true);
  });

  it.each<[string, Mapping]>([
    ["null", { value: "null", nullable: false }],
    ["undefined", { value: "undefined", nullable: false }],
    ["a missing input field", { value: "input.payload.missing", nullable: false }],
    ["a null literal", { literal: null, nullable: false }],
    ["null with a value_type, which is not cast", { value: "null", value_type: "integer" }],
    ["undefined with nullable left out", { value: "undefined" }],
  ])("fails the call on %s when the mapping is not nullable", async (_case, source) => {
    const result = await runMappings([{ field: "body.x", ...source }]);
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(500);
    const messages = failureMessages(result);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^service_requests\[0\]\.field_mappings\[0\]: .*\(field body\.x\)$/);
    expect(messages[0]).not.toMatch(/cannot cast/);
  });

  it.each<[string, Mapping, unknown]>([
    ["maps the value", { value: "input.payload.v" }, "active"],
    ["maps before the cast", { value: '"one"', value_type: "integer" }, 1],
    ["maps a literal", { literal: "A" }, "active"],
    [
      "maps null to the default before the null check",
      { value: "null", value_mapping_set: "fallback" },
      "unknown",
    ],
    ["keeps an unmatched value", { value: '"zzz"' }, "zzz"],
  ])("a mapping's value_mapping_set %s", async (_case, source, expected) => {
    const built = await buildPayload(
      [{ field: "x", value_mapping_set: "statuses", ...source }],
      { v: "a" },
      {
        value_mapping_sets: [
          {
            name: "statuses",
            mappings: [
              { from: "A", to: "active" },
              { from: "one", to: "1" },
            ],
          },
          { name: "fallback", default_to_value: "unknown", mappings: [{ from: "x", to: "ex" }] },
        ],
      },
    );
    expect(built).toEqual({ x: expected });
  });
});

describe("value mapping sets (SPEC §4.7)", () => {
  const sets = [
    {
      name: "loose",
      mappings: [
        { from: "A", to: "active" },
        { from: 1, to: "one" },
        { from: 2.5, to: "two and a half" },
        { from: true, to: "yes" },
      ],
    },
    {
      name: "strict",
      case_sensitive: true,
      mappings: [
        { from: "A", to: "upper" },
        { from: "a", to: "lower" },
        { from: true, to: "yes" },
      ],
    },
    { name: "fallback", default_to_value: "unknown", mappings: [{ from: "x", to: "ex" }] },
    { name: "empty_fallback", default_to_value: "", mappings: [{ from: "x", to: "ex" }] },
  ];

  it.each<[string, unknown, unknown]>([
    ["loose", "A", "active"],
    ["loose", "a", "active"],
    ["loose", 1, "one"],
    ["loose", "1", "one"],
    ["loose", 2.5, "two and a half"],
    ["loose", "2.5", "two and a half"],
    ["loose", "2.50", "2.50"],
    ["loose", true, "yes"],
    ["loose", "TRUE", "yes"],
    ["loose", "zzz", "zzz"],
    ["loose", 7, 7],
    ["loose", false, false],
    ["strict", "A", "upper"],
    ["strict", "a", "lower"],
    ["strict", "True", "True"],
    ["strict", true, "yes"],
    ["strict", "b", "b"],
    ["fallback", "X", "ex"],
    ["fallback", "y", "unknown"],
    ["fallback", 3, "unknown"],
    ["empty_fallback", "y", ""],
  ])("maps %s %j to %j, through map_value and through a mapping", async (set, value, expected) => {
    const result = await runDefinition(
      stringify({
        name: "a",
        value_mapping_sets: sets,
        service_requests: [
          {
            formula_variable: "t",
            system: "transform",
            field_mappings: [{ field: "x", value: "input.payload.v", value_mapping_set: set }],
          },
        ],
        on_success_hook: `output.payload = { by_function: map_value("${set}", input.payload.v), by_mapping: t.response.payload.x }`,
      }),
      { payload: { v: value } },
    );
    expect(result.output.payload).toEqual({ by_function: expected, by_mapping: expected });
  });

  it("fails the run when map_value names an unknown set", async () => {
    const result = await runDefinition(
      stringify({ name: "a", value_mapping_sets: sets, before_hook: "map_value(input.payload.set, 1)" }),
      { payload: { set: "nope" } },
    );
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(500);
    expect(failureMessages(result).join("\n")).toMatch(/nope/);
  });
});
