import { describe, expect, it } from "vitest";
import type { Item, RunRecord } from "../../src/engine/types.js";
import { checkExpectations, isSubset, outputOf } from "../../src/testing/expectations.js";
import type { Expectations } from "../../src/testing/test-file.js";
import { aRecord, inputItem, outputItem, recordedAt } from "../_records.js";

const at = recordedAt;
const secret = "s3cr3t-4242";

/** A record of a run that called `core` once and answered 201; `items` replaces its items. */
function record(overrides: Partial<RunRecord> = {}): RunRecord {
  return aRecord({
    items: [
      inputItem({ name: "Ada" }),
      {
        seq: 2,
        at,
        kind: "REQUEST",
        label: "core",
        sridx: null,
        duration_ms: 1,
        request: { service_name: "n/a", payload: { body: { firstName: "Ada" } } },
        response: { success: true, status: 201, payload: { personId: "P1" }, messages: [] },
      },
      { seq: 3, at, kind: "DEBUG", label: "person", data: { id: "P1" } },
      outputItem(4, {
        status: 201,
        headers: { "x-trace": "t1" },
        payload: { customer_id: "P1", tags: ["a", "b"], address: { city: "Oslo", zip: null } },
      }),
    ],
    ...overrides,
  });
}

const failed = record({
  status: "failure",
  items: [
    {
      seq: 1,
      at,
      kind: "VALIDATION_FAILURE",
      label: "input.payload.email",
      message: "bad email",
      vridx: null,
    },
    {
      seq: 2,
      at,
      kind: "FAILURE",
      error: { code: "cell_error", message: "boom", cell: "before_hook", line: 4 },
    },
    {
      seq: 3,
      at,
      kind: "OUTPUT",
      data: { status: 422, headers: {}, payload: { error: { code: "invalid" } } },
    },
  ],
});

describe("isSubset", () => {
  it.each([
    ["equal scalars", 1, 1, true],
    ["another number", 1, 2, false],
    ["a number against its text", 1, "1", false],
    ["a string against a number", "201", 201, false],
    ["true against 1", true, 1, false],
    ["null against null", null, null, true],
    ["null against nothing", null, undefined, false],
    ["null against an empty object", null, {}, false],
    ["an empty object against anything object-like", {}, { a: 1 }, true],
    ["an object against null", {}, null, false],
    ["an object against an array", {}, [], false],
    ["an object against a string", { a: 1 }, "a", false],
    ["some keys of an object", { a: 1 }, { a: 1, b: 2 }, true],
    ["a key that is missing", { c: 1 }, { a: 1, b: 2 }, false],
    ["a null key against a missing key", { a: null }, {}, false],
    ["a null key against a null key", { a: null }, { a: null, b: 1 }, true],
    ["a null key against a value", { a: null }, { a: 0 }, false],
    ["nested keys", { a: { b: { c: 1 } } }, { a: { b: { c: 1, d: 2 }, e: 3 } }, true],
    ["a nested value that differs", { a: { b: { c: 1 } } }, { a: { b: { c: 2 } } }, false],
    ["a nested object against a scalar", { a: { b: 1 } }, { a: 1 }, false],
    ["equal arrays", [1, 2], [1, 2], true],
    ["an array in another order", [1, 2], [2, 1], false],
    ["a shorter array", [1], [1, 2], false],
    ["a longer array", [1, 2, 3], [1, 2], false],
    ["an empty array against an empty array", [], [], true],
    ["an empty array against a non-empty one", [], [1], false],
    ["an array against an object with indexes", [1], { 0: 1 }, false],
    [
      "array elements as subsets",
      [{ a: 1 }, { b: 2 }],
      [
        { a: 1, x: 0 },
        { b: 2, y: 0 },
      ],
      true,
    ],
    ["an array element that is not a subset", [{ a: 1 }, { b: 2 }], [{ a: 1 }, { b: 3 }], false],
    ["arrays inside objects", { list: [{ id: 1 }] }, { list: [{ id: 1, more: true }] }, true],
  ])("%s", (_label, expected, actual, result) => {
    expect(isSubset(expected, actual)).toBe(result);
  });
});

describe("checkExpectations", () => {
  it("finds nothing to report when there is nothing to expect", () => {
    expect(checkExpectations({}, failed)).toEqual([]);
  });

  describe("state", () => {
    it.each([
      ["success", record(), []],
      ["failure", failed, []],
      [
        "failure",
        record(),
        [{ path: "expect.state", message: "expected failure, the run ended in success" }],
      ],
      ["success", failed, [{ path: "expect.state", message: "expected success, the run ended in failure" }]],
    ] as const)("expects %s", (state, run, differences) => {
      expect(checkExpectations({ state }, run)).toEqual(differences);
    });
  });

  describe("output", () => {
    it.each<[string, Expectations["output"], { path: string; message: string }[]]>([
      ["the status alone", { status: 201 }, []],
      ["a part of the payload", { payload: { customer_id: "P1" } }, []],
      ["a header", { headers: { "x-trace": "t1" } }, []],
      ["a nested key", { payload: { address: { city: "Oslo" } } }, []],
      ["a null that is recorded", { payload: { address: { zip: null } } }, []],
      ["a whole array", { payload: { tags: ["a", "b"] } }, []],
      [
        "another status",
        { status: 200 },
        [{ path: "expect.output.status", message: "expected 200, got 201" }],
      ],
      [
        "a status as text",
        { status: "201" as unknown as number },
        [{ path: "expect.output.status", message: 'expected "201", got 201' }],
      ],
      [
        "a nested value that differs",
        { payload: { address: { city: "Bergen" } } },
        [{ path: "expect.output.payload.address.city", message: 'expected "Bergen", got "Oslo"' }],
      ],
      [
        "a key the payload does not have",
        { payload: { name: "Ada" } },
        [{ path: "expect.output.payload.name", message: 'expected "Ada", but there is no name' }],
      ],
      [
        "a null key the payload does not have",
        { payload: { address: { line2: null } } },
        [{ path: "expect.output.payload.address.line2", message: "expected null, but there is no line2" }],
      ],
      [
        "a value where null is recorded",
        { payload: { address: { zip: "0150" } } },
        [{ path: "expect.output.payload.address.zip", message: 'expected "0150", got null' }],
      ],
      [
        "an object where a string is recorded",
        { payload: { customer_id: { id: "P1" } } },
        [{ path: "expect.output.payload.customer_id", message: 'expected an object, got "P1"' }],
      ],
      [
        "an array where an object is recorded",
        { payload: { address: ["Oslo"] } },
        [
          {
            path: "expect.output.payload.address",
            message: 'expected ["Oslo"], got {"city":"Oslo","zip":null}',
          },
        ],
      ],
      [
        "an array with fewer elements",
        { payload: { tags: ["a"] } },
        [{ path: "expect.output.payload.tags", message: 'expected ["a"], got ["a","b"]' }],
      ],
      [
        "an array with an element that differs",
        { payload: { tags: ["a", "c"] } },
        [{ path: "expect.output.payload.tags[1]", message: 'expected "c", got "b"' }],
      ],
    ])("compares %s", (_label, output, differences) => {
      expect(checkExpectations({ output }, record())).toEqual(differences);
    });

    it("reports every key that differs, not only the first", () => {
      const differences = checkExpectations(
        { output: { status: 500, payload: { customer_id: "P2" } } },
        record(),
      );
      expect(differences.map((difference) => difference.path)).toEqual([
        "expect.output.status",
        "expect.output.payload.customer_id",
      ]);
    });

    it("says so when the run recorded no output", () => {
      const noOutput = record({ items: record().items.filter((item) => item.kind !== "OUTPUT") });
      expect(checkExpectations({ output: { status: 201 } }, noOutput)).toEqual([
        { path: "expect.output", message: "the run recorded no output" },
      ]);
    });

    it("compares with the last OUTPUT item", () => {
      const items = record().items;
      const later: Item = { seq: 9, at, kind: "OUTPUT", data: { status: 500, headers: {}, payload: null } };
      expect(outputOf(record({ items: [...items, later] }))?.status).toBe(500);
    });
  });

  describe("items", () => {
    it.each<[string, Record<string, unknown>[]]>([
      ["one item by kind", [{ kind: "REQUEST" }]],
      ["items in their order with gaps", [{ kind: "INPUT" }, { kind: "OUTPUT" }]],
      ["every item", [{ kind: "INPUT" }, { kind: "REQUEST" }, { kind: "DEBUG" }, { kind: "OUTPUT" }]],
      ["an item by label", [{ kind: "REQUEST", label: "core" }]],
      [
        "a nested part of an item",
        [{ kind: "REQUEST", response: { status: 201, payload: { personId: "P1" } } }],
      ],
      ["an item by its data", [{ kind: "DEBUG", data: { id: "P1" } }]],
      ["no item at all", []],
    ])("finds %s", (_label, items) => {
      expect(checkExpectations({ items }, record())).toEqual([]);
    });

    it("finds items of a failed run by their error", () => {
      const items = [
        { kind: "VALIDATION_FAILURE", label: "input.payload.email" },
        { kind: "FAILURE", error: { cell: "before_hook", line: 4 } },
      ];
      expect(checkExpectations({ items }, failed)).toEqual([]);
    });

    it.each<[string, Record<string, unknown>[], string]>([
      [
        "items in another order",
        [{ kind: "OUTPUT" }, { kind: "INPUT" }],
        'expect.items[1]: no item {"kind":"INPUT"} after item 4; the run recorded nothing more',
      ],
      [
        "a label that no item has",
        [{ kind: "INPUT" }, { kind: "REQUEST", label: "crm" }],
        'expect.items[1]: no item {"kind":"REQUEST","label":"crm"} after item 1; the run recorded REQUEST core, DEBUG person, OUTPUT',
      ],
      [
        "an item whose nested part differs",
        [{ kind: "REQUEST", response: { status: 500 } }],
        'expect.items[0]: no item {"kind":"REQUEST","response":{"status":500}} after item 0; the run recorded INPUT, REQUEST core, DEBUG person, OUTPUT',
      ],
      [
        "a kind the run never recorded",
        [{ kind: "FAILURE" }],
        'expect.items[0]: no item {"kind":"FAILURE"} after item 0; the run recorded INPUT, REQUEST core, DEBUG person, OUTPUT',
      ],
      [
        "the same item twice",
        [{ kind: "REQUEST" }, { kind: "REQUEST" }],
        'expect.items[1]: no item {"kind":"REQUEST"} after item 2; the run recorded DEBUG person, OUTPUT',
      ],
    ])("reports %s with what the run recorded", (_label, items, text) => {
      const differences = checkExpectations({ items }, record());
      expect(differences.map((difference) => `${difference.path}: ${difference.message}`)).toEqual([text]);
    });
  });

  describe("never_recorded", () => {
    const withSecret = (items: Item[]) => record({ items: [...record().items, ...items] });

    it.each<[string, RunRecord, string]>([
      [
        "in an INPUT payload",
        record({
          items: [
            {
              seq: 1,
              at,
              kind: "INPUT",
              data: {
                method: "POST",
                fullpath: "/",
                path: {},
                params: {},
                headers: {},
                payload: { tax: secret },
              },
            },
          ],
        }),
        "(in item 1, INPUT)",
      ],
      [
        "inside a longer string of a REQUEST payload",
        withSecret([
          {
            seq: 5,
            at,
            kind: "REQUEST",
            label: "crm",
            sridx: 0,
            duration_ms: 1,
            request: { service_name: "n/a", payload: { note: `id ${secret} end` } },
            response: null,
          },
        ]),
        "(in item 5, REQUEST)",
      ],
      [
        "in a LOG item",
        withSecret([{ seq: 5, at, kind: "LOG", level: "info", data: secret }]),
        "(in item 5, LOG)",
      ],
      [
        "in a FAILURE message",
        withSecret([
          { seq: 5, at, kind: "FAILURE", error: { code: "cell_error", message: `no customer ${secret}` } },
        ]),
        "(in item 5, FAILURE)",
      ],
      [
        "in the OUTPUT payload",
        withSecret([{ seq: 5, at, kind: "OUTPUT", data: { status: 200, headers: {}, payload: [secret] } }]),
        "(in item 5, OUTPUT)",
      ],
    ])("catches a value %s without printing it", (_label, run, where) => {
      const differences = checkExpectations({ never_recorded: ["absent", secret] }, run);
      expect(differences).toEqual([
        {
          path: "expect.never_recorded[1]",
          message: `a value that must never be recorded is in the run's record ${where}`,
        },
      ]);
      expect(JSON.stringify(differences)).not.toContain(secret);
      expect(JSON.stringify(differences)).not.toContain("4242");
    });

    it("catches a number as its digits", () => {
      const run = withSecret([{ seq: 5, at, kind: "DEBUG", data: { pin: 918273 } }]);
      const differences = checkExpectations({ never_recorded: [918273] }, run);
      expect(differences).toEqual([
        {
          path: "expect.never_recorded[0]",
          message: "a value that must never be recorded is in the run's record (in item 5, DEBUG)",
        },
      ]);
      expect(JSON.stringify(differences)).not.toContain("918273");
    });

    it("reports each value that leaked once", () => {
      const run = withSecret([
        { seq: 5, at, kind: "LOG", level: "warn", data: `${secret} and 55-66` },
        { seq: 6, at, kind: "DEBUG", data: secret },
      ]);
      const differences = checkExpectations({ never_recorded: [secret, "55-66", "gone"] }, run);
      expect(differences.map((difference) => difference.path)).toEqual([
        "expect.never_recorded[0]",
        "expect.never_recorded[1]",
      ]);
    });

    it("passes when the value appears only masked", () => {
      const run = withSecret([{ seq: 5, at, kind: "LOG", level: "info", data: "XXXXXXXXXXXX" }]);
      expect(checkExpectations({ never_recorded: [secret] }, run)).toEqual([]);
    });
  });

  it("reports every kind of difference together, in the order of the expectations", () => {
    const differences = checkExpectations(
      {
        state: "success",
        output: { status: 201 },
        items: [{ kind: "REQUEST" }],
        never_recorded: ["bad email"],
      },
      failed,
    );
    expect(differences.map((difference) => difference.path)).toEqual([
      "expect.state",
      "expect.output.status",
      "expect.items[0]",
      "expect.never_recorded[0]",
    ]);
  });
});
