import { afterEach, describe, expect, it } from "vitest";
import { echoAdapter } from "../../src/adapters/echo.js";
import { runIntegration } from "../../src/engine/run.js";
import type { Item, RunInput } from "../../src/engine/types.js";
import { openProjectFiles } from "../../src/project/open-files.js";
import { createTempDir, defaultProjectFile, runDefinition } from "../_helpers.js";

/** Runs the one definition of a project as many times as there are inputs, on one compiled integration. */
async function runTwice(definition: string, inputs: RunInput[]) {
  const dir = createTempDir({ "bass.config.yaml": defaultProjectFile, "integrations/a.yaml": definition });
  const { project } = openProjectFiles({ cwd: dir, env: {} });
  const integration = project.compile(project.definitions[0] as never);
  const results = [];
  for (const input of inputs)
    results.push(
      await runIntegration(integration, input, {
        cellTimeoutMs: 1000,
        runTimeoutMs: 5000,
        adapters: () => echoAdapter,
        trigger: "test",
        secrets: [],
      }),
    );
  return results;
}

function failures(items: readonly Item[]) {
  return items.flatMap((item) => (item.kind === "FAILURE" ? [item.error] : []));
}

afterEach(() => {
  // Had a cell reached bass's realm, the test process itself would show it.
  expect(Object.prototype).not.toHaveProperty("toJSON");
  expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
});

describe("cells run in a realm of their own (SPEC §13.1)", () => {
  it.each([
    ["Object.prototype", "Object.prototype.toJSON = () => 'hijacked'"],
    ["the prototype of input", "input.constructor.prototype.toJSON = () => 'hijacked'"],
    ["the prototype of a formula variable", "(output.constructor.prototype).toJSON = () => 'hijacked'"],
    ["Array.prototype", "Array.prototype.map = () => ['hijacked']"],
    ["JSON", "JSON.stringify = () => 'hijacked'"],
  ])("fails the run that changes %s, and the next run answers as before", async (_name, attack) => {
    const definition = `name: a
on_success_hook: |
  if (input.payload.attack) { ${attack} }
  output.payload = { list: [1, 2].map((n) => n * 2), text: JSON.stringify({ b: 1 }) }
`;
    const [attacked, next] = await runTwice(definition, [{ payload: { attack: true } }, { payload: {} }]);
    expect(attacked?.status).toBe("failure");
    expect(failures(attacked?.record.items ?? [])[0]).toMatchObject({ code: "cell_error" });
    expect(next?.status).toBe("success");
    expect(next?.output.payload).toEqual({ list: [2, 4], text: '{"b":1}' });
    expect(next?.outputJson).toBe('{"list":[2,4],"text":"{\\"b\\":1}"}');
  });

  it("gives no way to make code from a string, through any function a cell can reach", async () => {
    const code = `
const reach = [
  () => eval("1"),
  () => Function("return 1")(),
  () => keep.constructor("return 1")(),
  () => console.log.constructor("return 1")(),
  () => (function* () {}).constructor("return 1")(),
  () => (async function* () {}).constructor("return 1")(),
  () => (async () => {}).constructor("return 1")(),
]
output.payload = reach.map((attempt) => { try { return typeof attempt() } catch (error) { return error.name } })`;
    const result = await runDefinition(`name: a\nbefore_hook: ${JSON.stringify(code)}\n`, { payload: {} });
    // eval and Function are no names a cell has; every constructor it reaches refuses.
    expect(result.output.payload).toEqual([
      "ReferenceError",
      "ReferenceError",
      ...Array(5).fill("EvalError"),
    ]);
  });

  it("sends a byte string made in the realm as bytes, and takes plain data out of it", async () => {
    const result = await runDefinition(
      `name: a
on_success_hook: |
  output.headers = { "Content-Type": "text/plain" }
  output.payload = new TextEncoder().encode("héllo")
`,
      { payload: {} },
    );
    expect(result.status).toBe("success");
    expect(Buffer.isBuffer(result.output.payload)).toBe(true);
    expect(String(result.output.payload)).toBe("héllo");

    const json = await runDefinition(
      `name: a\non_success_hook: |\n  output.payload = { when: new Date(0), skip: () => 1, list: new Set([1]), bytes: bytes("hi") }\n`,
      { payload: {} },
    );
    expect(json.output.payload).toEqual({
      when: "1970-01-01T00:00:00.000Z",
      list: {},
      bytes: { 0: 104, 1: 105 },
    });
    expect(Object.getPrototypeOf(json.output.payload)).toBe(Object.prototype);
  });

  it("copies what bass hands in, so that the realm's objects are all a cell sees", async () => {
    const result = await runDefinition(
      `name: a
on_success_hook: |
  output.payload = [input.payload, input.payload.list, t.request.payload, t.response.payload]
    .map((value) => Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === Array.prototype)
service_requests:
  - formula_variable: t
    system: transform
    field_mappings:
      - { field: body, value: "({ a: 1 })" }
`,
      { payload: { list: [1] } },
    );
    expect(result.output.payload).toEqual([true, true, true, true]);
  });

  it("copies keys named like Object.prototype's members as data, whatever their values", async () => {
    const payload = JSON.parse(
      '{"constructor": {"name": "c"}, "__proto__": {"polluted": true}, "toString": 1, "hasOwnProperty": "h", "nested": {"constructor": "x"}}',
    );
    const result = await runDefinition(
      `name: a
on_success_hook: |
  const p = input.payload
  output.payload = {
    keys: Object.keys(p),
    realm: [p, p.nested, p.constructor, p["__proto__"]].map((value) => Object.getPrototypeOf(value) === Object.prototype),
    polluted: p.polluted === undefined && ({}).polluted === undefined,
    values: [p.constructor.name, p.toString, p.hasOwnProperty, p.nested.constructor],
  }
`,
      { payload },
    );
    expect(result.output.payload).toEqual({
      keys: ["constructor", "__proto__", "toString", "hasOwnProperty", "nested"],
      realm: [true, true, true, true],
      polluted: true,
      values: ["c", 1, "h", "x"],
    });
  });
});

describe("what bass writes into a cell's objects is of the realm too", () => {
  /** A cell's attempt to make a function from a string out of `expression`'s constructor, as its name. */
  const attempt = (expression: string) =>
    `(() => { try { return typeof (${expression}).constructor.constructor("return 1")() } catch (error) { return error.name } })()`;

  it("binds a mask's mitem in the realm", async () => {
    const result = await runDefinition(
      `name: a
masks:
  - { type: INPUT, field: secret, apply_if: ${JSON.stringify(`keep({ reached: ${attempt("mitem")} }) || true`)} }
on_success_hook: output.payload = reached
`,
      { payload: { secret: "1234-5678" } },
    );
    expect(result.output.payload).toBe("EvalError");
  });

  it("copies a literal a field mapping writes into an object a cell made", async () => {
    const result = await runDefinition(
      `name: a
on_success_hook: ${JSON.stringify(`output.payload = ${attempt("t.request.payload.a.b")}`)}
service_requests:
  - formula_variable: t
    system: transform
    field_mappings:
      - { field: a, value: "({})" }
      - { field: a.b, literal: { k: 1 } }
`,
      { payload: {} },
    );
    expect(result.output.payload).toBe("EvalError");
  });
});

describe("the special functions' getters", () => {
  it("throw errors of the realm when called on another object, so no cell reaches bass's Function", async () => {
    const result = await runDefinition(
      `name: escape
on_success_hook: |
  let escaped = 'nothing thrown'
  try {
    Object.getOwnPropertyDescriptor(Object.getPrototypeOf(arguments[0]), 'end').get.call({})
  } catch (error) {
    try {
      escaped = typeof error.constructor.constructor('return process')()
    } catch {
      escaped = 'refused'
    }
  }
  output.payload = { escaped }
`,
      { payload: {} },
    );
    expect(result.output.payload).toEqual({ escaped: "refused" });
  });
});

describe("a cell cannot block its thread where its deadline check cannot see", () => {
  it("has no Atomics.wait: the run fails and its record says why", async () => {
    const result = await runDefinition(
      "name: a\nbefore_hook: Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)\n",
      { payload: {} },
    );
    expect(result.status).toBe("failure");
    expect(failures(result.record.items)).toEqual([
      expect.objectContaining({
        code: "cell_error",
        message: expect.stringContaining("Atomics.wait is not available to cells"),
      }),
    ]);
  });

  it("ends a regular expression that backtracks without end, in V8's linear-time engine", async () => {
    // Without that engine this test does not end: 2^40 steps, where no deadline check runs.
    const result = await runDefinition(
      "name: a\non_success_hook: |\n  output.payload = { matched: /^(a+)+$/.test('a'.repeat(40) + 'b') }\n",
      { payload: {} },
    );
    expect(result.output.payload).toEqual({ matched: false });
  });
});

describe("a stack a cell can read", () => {
  it("names the cell's frames and none of bass's files", async () => {
    const result = await runDefinition(
      "name: a\non_success_hook: |\n  output.payload = { get where() { return new Error('here').stack } }\n",
      { payload: {} },
    );
    const where = (result.output.payload as { where: string }).where;
    expect(where).toMatch(/^Error: here\n {4}at get where (?:\[as where\] )?\(bass-cell-\d+:\d+:\d+\)/);
    expect(where).not.toContain(process.cwd());
    expect(where).not.toMatch(/file:|node:/);
  });

  it("still gives the failing line of a cell's error", async () => {
    const result = await runDefinition("name: a\nbefore_hook: |\n  const a = 1\n  null.b\n", { payload: {} });
    expect(failures(result.record.items)).toEqual([expect.objectContaining({ code: "cell_error", line: 4 })]);
  });
});

describe("promise work a cell leaves running", () => {
  it("stops when its run ends, so it cannot hold the thread past the run", async () => {
    // Without the stop, the loop holds every later turn of the event loop for the whole cell limit.
    const result = await runDefinition(
      "name: a\nbefore_hook: |\n  void (async () => { try { for (;;) await null } catch {} })()\n",
      { payload: {} },
      { cellTimeoutMs: 600_000 },
    );
    expect(result.status).toBe("success");
    const turned = await Promise.race([
      new Promise((resolve) => setImmediate(() => resolve("turned"))),
      new Promise((resolve) => setTimeout(() => resolve("held"), 5000).unref()),
    ]);
    expect(turned).toBe("turned");
  });
});

describe("RegExp's legacy statics", () => {
  it("keep nothing of one run's match for the next", async () => {
    const definition = `name: a
on_success_hook: |
  const seen = [RegExp.input, RegExp.$1, RegExp.lastMatch, RegExp.leftContext, RegExp.rightContext];
  /(\\d{3})-\\d{2}/.test(input.payload.tax_id ?? "")
  output.payload = seen
`;
    const [, second] = await runTwice(definition, [{ payload: { tax_id: "x 123-45 y" } }, { payload: {} }]);
    expect(second?.output.payload).toEqual(["", "", "", "", ""]);
  });
});

describe("intrinsics no global names", () => {
  it("are frozen: the prototypes of async and generator functions and of Intl.Segmenter's results", async () => {
    const code = `
const segments = new Intl.Segmenter().segment("ab");
const reach = [
  Object.getPrototypeOf(async function () {}),
  Object.getPrototypeOf(function* () {}),
  Object.getPrototypeOf(async function* () {}),
  Object.getPrototypeOf(function* () {}).prototype,
  Object.getPrototypeOf(async function* () {}).prototype,
  Object.getPrototypeOf(segments),
  Object.getPrototypeOf(segments[Symbol.iterator]()),
];
output.payload = reach.map((intrinsic) => Object.isFrozen(intrinsic))`;
    const result = await runDefinition(`name: a\nbefore_hook: ${JSON.stringify(code)}\n`, { payload: {} });
    expect(result.output.payload).toEqual(Array(7).fill(true));
  });
});
