import { afterEach, describe, expect, it, vi } from "vitest";
import type { Item } from "../../src/engine/types.js";
import { runDefinition } from "../_helpers.js";

function failures(items: readonly Item[]) {
  return items.flatMap((item) => (item.kind === "FAILURE" ? [item.error] : []));
}

function debugItems(items: readonly Item[]): [string | undefined, unknown][] {
  return items.flatMap((item) => (item.kind === "DEBUG" ? [[item.label, item.data]] : []));
}

function logs(items: readonly Item[]): string[] {
  return items.flatMap((item) => (item.kind === "LOG" ? [String(item.data)] : []));
}

/** The request payload of the first REQUEST item. */
function requestPayload(items: readonly Item[]): unknown {
  const request = items.find((item) => item.kind === "REQUEST");
  return request?.kind === "REQUEST" ? request.request.payload : undefined;
}

/** 1-based line of the first line of `text` that holds `marker`. */
function lineOf(text: string, marker: string): number {
  const index = text.split("\n").findIndex((line) => line.includes(marker));
  if (index < 0) throw new Error(`no line holds ${marker}`);
  return index + 1;
}

const simple = "name: simple\non_success_hook: |\n  output.payload = { ok: true }\n";

describe("cells in a run (SPEC §4.1)", () => {
  it.each([
    ["1 + 2", 3],
    ["  input.payload.n * 2  ", 14],
    ["input.payload.n\n", 7],
    ["\n\n  input.payload.n \n\n", 7],
    ["({ a: input.payload.n })", { a: 7 }],
    ["input.payload.n + 1 // a comment", 8],
    ["return input.payload.n - 1", 6],
    ["const a = 2\nreturn a * input.payload.n", 14],
    ["if (input.payload.n > 5) return 'big'\nreturn 'small'", "big"],
    ["const a = 2", null],
    ["1 +\n2", null],
    ["input.payload.n\ninput.payload.n", null],
  ])("yields %j as %j", async (code, expected) => {
    const result = await runDefinition(
      `name: yields
service_requests:
  - formula_variable: tr
    system: transform
    field_mappings:
      - field: value
        nullable: true
        value: ${JSON.stringify(code)}
`,
      { payload: { n: 7 } },
    );
    expect(result.status).toBe("success");
    expect(requestPayload(result.record.items)).toEqual({ value: expected });
  });

  const scopes = `name: scopes
before_hook: |
  const local = 1
  let counter = 2
  var old = 3
  function helper() { return 4 }
  keep({ shared: local + counter + old + helper() })
on_success_hook: |
  const local = "mine"
  output.payload = {
    local,
    counter: typeof counter,
    old: typeof old,
    helper: typeof helper,
    shared,
    read: input.payload.read === undefined ? null : input.payload.read === "counter" ? counter : helper(),
  }
`;

  it("keeps const, let, var and functions local to their cell", async () => {
    const result = await runDefinition(scopes, { payload: {} });
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual({
      local: "mine",
      counter: "undefined",
      old: "undefined",
      helper: "undefined",
      shared: 10,
      read: null,
    });
  });

  it.each([
    ["counter", /counter is not defined/],
    ["helper", /helper is not defined/],
  ])("fails a run whose cell reads %s of another cell", async (read, message) => {
    const result = await runDefinition(scopes, { payload: { read } });
    expect(result.status).toBe("failure");
    expect(failures(result.record.items)).toEqual([
      expect.objectContaining({ cell: "on_success_hook", message: expect.stringMatching(message) }),
    ]);
  });

  it("keeps writes to namespace objects for later cells", async () => {
    const result = await runDefinition(
      `name: writes
before_hook: |
  input.payload.added = "yes"
  input.payload.nested.n += 1
  output.headers["x-step"] = "before_hook"
service_requests:
  - formula_variable: tr
    system: transform
    after_overall_success_hook: tr.response.payload.note = "changed by a hook"
    field_mappings:
      - field: note
        value: input.payload.added + " " + input.payload.nested.n
on_success_hook: |
  output.payload = {
    added: input.payload.added,
    n: input.payload.nested.n,
    response: tr.response.payload.note,
    step: output.headers["x-step"],
  }
`,
      { payload: { nested: { n: 1 } } },
    );
    expect(result.status).toBe("success");
    expect(requestPayload(result.record.items)).toEqual({ note: "yes 2" });
    expect(result.output).toEqual({
      status: 200,
      headers: { "x-step": "before_hook" },
      payload: { added: "yes", n: 2, response: "changed by a hook", step: "before_hook" },
    });
  });

  it("makes kept names visible to later cells", async () => {
    const result = await runDefinition(
      `name: kept
before_hook: |
  keep({ total: 3, who: input.payload.who })
service_requests:
  - formula_variable: tr
    system: transform
    after_overall_success_hook: |
      keep({ echoed: tr.response.payload.doubled })
    field_mappings:
      - field: doubled
        value: total * 2
on_success_hook: |
  output.payload = { total, who, echoed }
`,
      { payload: { who: "ada" } },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual({ total: 3, who: "ada", echoed: 6 });
  });

  it.each([
    "globalThis.process.exit(1)",
    "global.process.exit(1)",
    'Function("return process")().exit(1)',
    'eval("process").exit(1)',
    "this.process.exit(1)",
    'globalThis.require("node:fs")',
  ])("has no process or require at run time: %s fails the run", async (code) => {
    const result = await runDefinition(`name: sandbox\nbefore_hook: ${JSON.stringify(code)}\n`, {
      payload: {},
    });
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(500);
    expect(failures(result.record.items)).toEqual([
      expect.objectContaining({ code: "cell_error", cell: "before_hook" }),
    ]);
  });

  it.each(["require('node:fs')", "process.exit(1)", "import('node:fs')"])(
    "refuses a definition that uses %s",
    async (code) => {
      await expect(
        runDefinition(`name: sandbox\nbefore_hook: ${JSON.stringify(code)}\n`, { payload: {} }),
      ).rejects.toThrow(/cell-forbidden/);
    },
  );

  it.each([
    { where: "before_hook", body: "before_hook: while (true) {}\n" },
    { where: "on_success_hook", body: "on_success_hook: |\n  let n = 0\n  for (;;) n++\n" },
    { where: "finally_hook", body: "finally_hook: do {} while (true)\n" },
    {
      where: "validation_rules[0].rule",
      body: "validation_rules:\n  - type: INPUT\n    field: input.payload\n    rule: |\n      while (true);\n",
    },
    {
      where: "service_requests[0].field_mappings[0].value",
      body: `service_requests:
  - formula_variable: tr
    system: transform
    field_mappings:
      - field: x
        value: |
          for (const n of [1]) while (n) {}
`,
    },
  ])("ends an endless loop in $where with a time-out failure", async ({ where, body }) => {
    const started = performance.now();
    const result = await runDefinition(`name: loops\n${body}`, { payload: {} }, { cellTimeoutMs: 50 });
    expect(performance.now() - started).toBeLessThan(1500);
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(504);
    expect(failures(result.record.items)).toEqual([
      expect.objectContaining({ code: "cell_timeout", cell: where }),
    ]);
    const next = await runDefinition(simple, { payload: {} }, { cellTimeoutMs: 50 });
    expect(next.status).toBe("success");
    expect(next.output.payload).toEqual({ ok: true });
  });

  const located = `name: located
before_hook: |
  const a = 1
  if (input.payload.at === "before_hook") throw new Error("at before_hook")
validation_rules:
  - type: INPUT
    field: input.payload.at
    rule: |
      _ === "rule" ? input.payload.missing.deep : true
service_requests:
  - formula_variable: core
    system: core
    after_execute_request_success_hook: |
      const b = 2

      if (input.payload.at === "sr hook") throw new Error("at sr hook")
    field_mappings:
      - field: service_path
        literal: /x
      - field: method
        literal: POST
      - field: body.value
        value: |
          input.payload.at === "mapping" ? input.payload.missing.deep : 1
finally_hook: |
  if (input.payload.at === "finally_hook") {
    throw new TypeError("at finally_hook")
  }
`;

  it.each([
    { at: "before_hook", cell: "before_hook", marker: 'throw new Error("at before_hook")' },
    { at: "rule", cell: "validation_rules[0].rule", marker: '_ === "rule" ?' },
    { at: "mapping", cell: "service_requests[0].field_mappings[2].value", marker: '"mapping" ?' },
    {
      at: "sr hook",
      cell: "service_requests[0].after_execute_request_success_hook",
      marker: 'throw new Error("at sr hook")',
    },
    { at: "finally_hook", cell: "finally_hook", marker: 'throw new TypeError("at finally_hook")' },
  ])("names the integration, the cell $cell and its file line", async ({ at, cell, marker }) => {
    const result = await runDefinition(
      located,
      { payload: { at } },
      { mocks: { core: { success: true, payload: {} } } },
    );
    expect(result.status).toBe("failure");
    const [error] = failures(result.record.items);
    expect(error).toMatchObject({ cell, line: lineOf(located, marker) });
    expect(error?.message).toContain("located");
    expect(error?.message).toContain(cell);
  });
});

describe("the namespace (SPEC §4.2)", () => {
  it("holds input with payload, method, path, params, headers and fullpath", async () => {
    const input = {
      payload: { a: 1 },
      method: "PUT",
      path: { id: "7" },
      params: { q: "x" },
      headers: { "x-trace": "t-1" },
      fullpath: "/things/7?q=x",
    };
    const result = await runDefinition('name: ns\nbefore_hook: historize(input, "input")\n', input);
    expect(debugItems(result.record.items)).toEqual([["input", { ...input, user: null }]]);
  });

  it("starts output as status 200, no headers and the completion message", async () => {
    const result = await runDefinition('name: ns.demo\nbefore_hook: historize(output, "output")\n', {
      payload: {},
    });
    const start = { status: 200, headers: {}, payload: "Integration ns.demo completed successfully" };
    expect(debugItems(result.record.items)).toEqual([["output", start]]);
    expect(result.output).toEqual(start);
  });

  it("has every formula variable from the start, as null", async () => {
    const result = await runDefinition(
      `name: fvs
before_hook: historize([first, second], "before_hook")
service_requests:
  - formula_variable: first
    system: transform
    sequence: 1
    before_prepare_request_hook: historize([first, second], "first")
    field_mappings:
      - field: n
        literal: 1
  - formula_variable: second
    system: transform
    sequence: 2
    call_if: input.payload.call_second
    field_mappings:
      - field: n
        literal: 2
on_success_hook: historize([first === null, second], "on_success_hook")
`,
      { payload: { call_second: false } },
    );
    expect(debugItems(result.record.items)).toEqual([
      ["before_hook", [null, null]],
      ["first", [null, null]],
      ["on_success_hook", [false, null]],
    ]);
  });

  it("binds loop variables in the cells they belong to", async () => {
    const result = await runDefinition(
      `name: loops
masks:
  - type: RESPONSE
    service_request: each
    apply_to_each: rows
    field: secret
    apply_if: (debug([mitem.id, midx, sritem, sridx], "mask"), true)
validation_rules:
  - type: INPUT
    apply_to_each: input.payload.codes
    field: vritem
    rule: (debug([vritem, vridx, _], "rule"), _ !== "bad")
    fail_hook: debug([vritem, vridx, vrmsg], "fail_hook")
    message: bad code
    abort_on_failure: false
service_requests:
  - formula_variable: each
    system: transform
    call_for_each: input.payload.items
    call_if: (debug([sritem, sridx], "call_if"), true)
    before_prepare_request_hook: debug([sritem, sridx], "hook")
    field_mappings:
      - field: rows[fidx].id
        include_for_each: '[sritem + "1", sritem + "2"]'
        value: (debug([fitem, fidx, sritem, sridx], "mapping"), fitem)
`,
      { payload: { codes: ["ok", "bad"], items: ["a", "b"] } },
    );
    expect(result.status).toBe("success");
    const perItem = (item: string, index: number) => [
      ["call_if", [item, index]],
      ["hook", [item, index]],
      ["mapping", [`${item}1`, 0, item, index]],
      ["mapping", [`${item}2`, 1, item, index]],
      ["mask", [`${item}1`, 0, item, index]],
      ["mask", [`${item}2`, 1, item, index]],
    ];
    expect(debugItems(result.record.items)).toEqual([
      ["rule", ["ok", 0, "ok"]],
      ["rule", ["bad", 1, "bad"]],
      ["fail_hook", ["bad", 1, "bad code"]],
      ...perItem("a", 0),
      ...perItem("b", 1),
    ]);
  });

  it.each([
    ["sritem", "before_hook: debug(sritem)"],
    ["fidx", "on_success_hook: debug(fidx)"],
    ["vrmsg", "finally_hook: debug(vrmsg)"],
    ["mitem", "validation_rules:\n  - type: INPUT\n    field: input.payload\n    rule: mitem"],
    [
      "fitem",
      "service_requests:\n  - formula_variable: tr\n    system: transform\n    before_prepare_request_hook: debug(fitem)",
    ],
    [
      "sridx",
      "service_requests:\n  - formula_variable: tr\n    system: transform\n    call_for_each: '[sridx]'",
    ],
  ])("refuses %s where it is not bound", async (name, body) => {
    await expect(runDefinition(`name: scope\n${body}\n`, { payload: {} })).rejects.toThrow(
      new RegExp(`${name} is not bound[^\\n]*loop-variable-scope`),
    );
  });
});

describe("end() (SPEC §4.3)", () => {
  const ending = `name: ending
before_hook: |
  console.log("before_hook")
  if (input.payload.end_in === "before_hook") end(input.payload.args)
on_success_hook: |
  console.log("on_success_hook")
  if (input.payload.end_in === "on_success_hook") end(input.payload.args)
  if (input.payload.more) {
    console.log("after end()")
    output.status = 202
  }
on_failure_hook: |
  console.log("on_failure_hook")
  if (input.payload.end_in === "on_failure_hook") end(input.payload.args)
finally_hook: |
  console.log("finally_hook " + output.status)
  if (input.payload.end_in === "finally_hook") end(input.payload.args)
validation_rules:
  - type: INPUT
    field: input.payload.valid
    rule: (console.log("first rule"), _ !== false)
    fail_hook: |
      console.log("fail_hook")
      if (input.payload.end_in === "fail_hook") end(input.payload.args)
  - type: INPUT
    field: input.payload.valid
    rule: (console.log("second rule"), true)
service_requests:
  - formula_variable: first
    system: transform
    sequence: 1
    after_execute_request_success_hook: |
      console.log("first after_execute_request_success_hook")
      if (input.payload.end_in === "first") end(input.payload.args)
    after_overall_success_hook: console.log("first after_overall_success_hook")
    field_mappings:
      - field: n
        literal: 1
  - formula_variable: second
    system: transform
    sequence: 2
    before_prepare_request_hook: console.log("second")
    field_mappings:
      - field: n
        literal: 2
`;
  const completed = "Integration ending completed successfully";
  const rules = ["before_hook", "first rule", "second rule"];
  const calls = ["first after_execute_request_success_hook", "first after_overall_success_hook", "second"];

  it.each([
    {
      name: "end() in before_hook",
      payload: { end_in: "before_hook" },
      order: ["before_hook", "finally_hook 200"],
      state: "success",
      output: { status: 200, headers: {}, payload: completed },
    },
    {
      name: "end() with status 404 and a payload",
      payload: { end_in: "before_hook", args: { status: 404, payload: { reason: "none" } } },
      order: ["before_hook", "finally_hook 404"],
      state: "failure",
      output: { status: 404, headers: {}, payload: { reason: "none" } },
    },
    {
      name: "end() with status 400",
      payload: { end_in: "before_hook", args: { status: 400 } },
      order: ["before_hook", "finally_hook 400"],
      state: "failure",
      output: { status: 400, headers: {}, payload: completed },
    },
    {
      name: "end() with status 399",
      payload: { end_in: "before_hook", args: { status: 399 } },
      order: ["before_hook", "finally_hook 399"],
      state: "success",
      output: { status: 399, headers: {}, payload: completed },
    },
    {
      name: "end() with state failure and no status",
      payload: { end_in: "before_hook", args: { state: "failure" } },
      order: ["before_hook", "finally_hook 200"],
      state: "failure",
      output: { status: 200, headers: {}, payload: completed },
    },
    {
      name: "end() with state success, status 409 and headers",
      payload: {
        end_in: "before_hook",
        args: { state: "success", status: 409, headers: { "x-why": "duplicate" } },
      },
      order: ["before_hook", "finally_hook 409"],
      state: "success",
      output: { status: 409, headers: { "x-why": "duplicate" }, payload: completed },
    },
    {
      name: "end() in a failing rule's fail_hook",
      payload: { end_in: "fail_hook", valid: false, args: { status: 400, payload: "bad input" } },
      order: ["before_hook", "first rule", "fail_hook", "finally_hook 400"],
      state: "failure",
      output: { status: 400, headers: {}, payload: "bad input" },
    },
    {
      name: "end() with state success in a failing rule's fail_hook",
      payload: { end_in: "fail_hook", valid: false, args: { state: "success" } },
      order: ["before_hook", "first rule", "fail_hook", "finally_hook 200"],
      state: "success",
      output: { status: 200, headers: {}, payload: completed },
    },
    {
      name: "end() in a service request hook",
      payload: { end_in: "first", args: { status: 202, payload: { accepted: true } } },
      order: [...rules, "first after_execute_request_success_hook", "finally_hook 202"],
      state: "success",
      output: { status: 202, headers: {}, payload: { accepted: true } },
    },
    {
      name: "end() in on_success_hook",
      payload: { end_in: "on_success_hook", args: { status: 201, payload: { id: 1 } } },
      order: [...rules, ...calls, "on_success_hook", "finally_hook 201"],
      state: "success",
      output: { status: 201, headers: {}, payload: { id: 1 } },
    },
    {
      name: "end() without a state in on_failure_hook, after the 422 default",
      payload: { end_in: "on_failure_hook", valid: false },
      order: ["before_hook", "first rule", "fail_hook", "second rule", "on_failure_hook", "finally_hook 422"],
      state: "failure",
      output: {
        status: 422,
        headers: {},
        payload: { error: expect.objectContaining({ code: expect.any(String) }) },
      },
    },
    {
      name: "end() with state success in on_failure_hook",
      payload: {
        end_in: "on_failure_hook",
        valid: false,
        args: { state: "success", status: 200, payload: "ok" },
      },
      order: ["before_hook", "first rule", "fail_hook", "second rule", "on_failure_hook", "finally_hook 200"],
      state: "success",
      output: { status: 200, headers: {}, payload: "ok" },
    },
    {
      name: "end() and then more code in the same cell",
      payload: { end_in: "on_success_hook", args: { status: 201 }, more: "log" },
      order: [...rules, ...calls, "on_success_hook", "after end()", "finally_hook 202"],
      state: "success",
      output: { status: 202, headers: {}, payload: completed },
    },
    {
      name: "end() in finally_hook",
      payload: { end_in: "finally_hook", args: { status: 503 } },
      order: [...rules, ...calls, "on_success_hook", "finally_hook 200"],
      state: "failure",
      output: { status: 503, headers: {}, payload: completed },
    },
  ])("ends the run: $name", async ({ payload, order, state, output }) => {
    const result = await runDefinition(ending, { payload });
    expect(logs(result.record.items)).toEqual(order);
    expect(result.status).toBe(state);
    expect(result.record.status).toBe(state);
    expect(result.output).toEqual(output);
    expect(result.record.items.at(-1)).toMatchObject({ kind: "OUTPUT", data: { status: output.status } });
  });

  it("leaves no FAILURE item and no VALIDATION_FAILURE of later rules after end()", async () => {
    const result = await runDefinition(ending, {
      payload: { end_in: "before_hook", valid: false, args: { status: 404 } },
    });
    expect(result.record.items.map((item) => item.kind)).toEqual(["INPUT", "LOG", "LOG", "OUTPUT"]);
  });
});

describe("the other special functions (SPEC §4.3)", () => {
  const mapping = `name: mapped
value_mapping_sets:
  - name: status
    mappings:
      - { from: 1, to: active }
      - { from: "B", to: blocked }
  - name: strict
    case_sensitive: true
    default_to_value: unknown
    mappings:
      - { from: "B", to: blocked }
on_success_hook: |
  output.payload = { mapped: map_value(input.payload.set, input.payload.value) }
`;

  it.each([
    ["status", 1, "active"],
    ["status", "1", "active"],
    ["status", "b", "blocked"],
    ["status", "x", "x"],
    ["status", true, true],
    ["strict", "B", "blocked"],
    ["strict", "b", "unknown"],
  ])("map_value(%j, %j) is %j", async (set, value, mapped) => {
    const result = await runDefinition(mapping, { payload: { set, value } });
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual({ mapped });
  });

  it("work when taken out of the namespace, each for its own run, and may be replaced", async () => {
    const aliased = `name: aliased
on_success_hook: |
  const label = add_run_label
  const log = console.log
  const fns = [end, map_value, historize, debug, keep, bytes].map((fn) => typeof fn)
  label(input.payload.tag)
  log("logged")
  output.payload = { fns, same: add_run_label === label }
finally_hook: |
  historize = "replaced"
  output.payload.replaced = historize
`;
    const [first, second] = await Promise.all(
      ["a", "b"].map((tag) => runDefinition(aliased, { payload: { tag } })),
    );
    expect(first?.output.payload).toEqual({
      fns: Array(6).fill("function"),
      same: true,
      replaced: "replaced",
    });
    expect([first?.record.labels, second?.record.labels]).toEqual([["a"], ["b"]]);
    expect(logs(first?.record.items ?? [])).toEqual(["logged"]);
  });

  it("leave the run's own state out of the cells' reach", async () => {
    const result = await runDefinition(
      "name: reach\non_success_hook: |\n  output.payload = { own: arguments.length }\n",
      { payload: {} },
    );
    expect(result.output.payload).toEqual({ own: 0 });
  });

  it("fails the run when map_value names an unknown set", async () => {
    const result = await runDefinition(mapping, { payload: { set: "nope", value: 1 } });
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(500);
    expect(failures(result.record.items)).toEqual([
      expect.objectContaining({ cell: "on_success_hook", message: expect.stringContaining("nope") }),
    ]);
  });

  it.each([
    ['historize({ a: 1 }, "step")', { label: "step", data: { a: 1 } }],
    ['debug([1, 2], "list")', { label: "list", data: [1, 2] }],
    ['historize(input.payload.n, "n")', { label: "n", data: 5 }],
    ['historize("text")', { data: "text" }],
    ["debug(null)", { data: null }],
    ["const o = { n: 1 }\nhistorize(o)\no.n = 2", { data: { n: 1 } }],
  ])("%s adds a DEBUG item", async (code, expected) => {
    const result = await runDefinition(`name: debugging\nbefore_hook: ${JSON.stringify(code)}\n`, {
      payload: { n: 5 },
    });
    const items = result.record.items.filter((item) => item.kind === "DEBUG");
    expect(items).toStrictEqual([
      { seq: expect.any(Number), at: expect.any(String), kind: "DEBUG", ...expected },
    ]);
  });

  describe("console", () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it.each([
      ["log", "info"],
      ["info", "info"],
      ["warn", "warn"],
      ["error", "error"],
    ])("console.%s adds a LOG item at level %s and prints nothing", async (method, level) => {
      const printed: string[] = [];
      const capture = (...args: unknown[]) => void printed.push(args.map(String).join(" "));
      for (const name of ["log", "info", "warn", "error", "debug"] as const)
        vi.spyOn(console, name).mockImplementation(capture);
      for (const stream of [process.stdout, process.stderr])
        vi.spyOn(stream, "write").mockImplementation((chunk: unknown) => {
          printed.push(String(chunk));
          return true;
        });
      const result = await runDefinition(
        `name: logging\nbefore_hook: console.${method}("marker-${method}")\n`,
        { payload: {} },
      );
      vi.restoreAllMocks();
      const items = result.record.items.filter((item) => item.kind === "LOG");
      expect(items).toStrictEqual([
        { seq: 2, at: expect.any(String), kind: "LOG", level, data: `marker-${method}` },
      ]);
      expect(printed.filter((text) => text.includes("marker-"))).toEqual([]);
    });
  });

  it.each([
    { cells: "", labels: [] },
    { cells: 'before_hook: add_run_label("vip")\n', labels: ["vip"] },
    {
      cells: 'before_hook: add_run_label("vip")\non_success_hook: add_run_label(input.payload.region)\n',
      labels: ["vip", "eu"],
    },
    {
      cells: 'before_hook: |\n  add_run_label("vip")\n  throw new Error("broken")\n',
      labels: ["vip"],
    },
  ])("add_run_label gives the run the labels $labels", async ({ cells, labels }) => {
    const result = await runDefinition(`name: labelled\n${cells}`, { payload: { region: "eu" } });
    expect(result.record.labels).toEqual(labels);
  });

  it("humanize gives the readable name of a request, a field mapping or a rule, else the name itself", async () => {
    const result = await runDefinition(
      `name: humane
validation_rules:
  - type: INPUT
    field: input.payload.email
    rule: "true"
    message_substitution_name: E-mail address
service_requests:
  - formula_variable: person
    system: transform
    message_substitution_name: The person service
    field_mappings:
      - field: names[fidx].first
        value: fitem
        include_for_each: "['Ada']"
        message_substitution_name: First name
on_success_hook: |
  output.payload = ["person", "names[0].first", "names.first", "input.payload.email", "other"].map(humanize)
`,
      { payload: { email: "ada@example.com" } },
    );
    expect(result.output.payload).toEqual([
      "The person service",
      "First name",
      "First name",
      "E-mail address",
      "other",
    ]);
  });

  it.each([
    ['bytes("hello")', "hello", { bytes: 5, preview: "hello" }],
    ['bytes("aGVsbG8=", "base64")', "hello", { bytes: 5, preview: "hello" }],
    ['bytes("68656c6c6f", "hex")', "hello", { bytes: 5, preview: "hello" }],
    ['bytes("é")', "é", { bytes: 2, preview: "é" }],
    ['bytes("x".repeat(300))', "x".repeat(300), { bytes: 300, preview: "x".repeat(256) }],
  ])("%s makes a byte payload recorded as { bytes, preview }", async (call, text, recorded) => {
    const result = await runDefinition(
      `name: binary
on_success_hook: |
  output.headers["Content-Type"] = "application/octet-stream"
  output.payload = ${call}
`,
      { payload: {} },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(result.output.payload as Uint8Array).toString("utf8")).toBe(text);
    expect(result.record.items.at(-1)).toMatchObject({
      kind: "OUTPUT",
      data: { status: 200, headers: { "Content-Type": "application/octet-stream" }, payload: recorded },
    });
  });
});

describe("run_history_id and get_namespace", () => {
  it("gives a cell the run's own id", async () => {
    const result = await runDefinition(
      'name: id\non_success_hook: "output.payload = { id: run_history_id }"\n',
      {
        payload: {},
      },
    );
    expect(result.output.payload).toEqual({ id: result.runId });
  });

  it("copies the namespace for debugging, masked as the record is, without the special functions", async () => {
    const result = await runDefinition(
      `name: ns.copy
masks:
  - type: INPUT
    field: tax_id
before_hook: |
  keep({ note: 'the tax id is ' + input.payload.tax_id })
  historize(get_namespace(), "namespace")
`,
      { payload: { tax_id: "123-45-6789" } },
    );
    const [[, copy]] = debugItems(result.record.items) as [[string, Record<string, unknown>]];
    expect(copy.note).toBe("the tax id is XXXXXXXXXXXX");
    expect(copy.input).toMatchObject({ payload: { tax_id: "XXXXXXXXXXXX" }, user: null });
    expect(copy.run_history_id).toBe(result.runId);
    expect(Object.keys(copy)).not.toContain("historize");
    expect(Object.keys(copy)).not.toContain("sridx");
    expect(JSON.stringify(copy)).not.toContain("123-45-6789");
  });

  it("gives input.user when a run has one, and records it in the INPUT item", async () => {
    const result = await runDefinition(
      'name: who\non_success_hook: "output.payload = { who: input.user.username }"\n',
      {
        payload: {},
        user: { id: null, username: "bearer:3f2a9c01", email: null },
      },
    );
    expect(result.output.payload).toEqual({ who: "bearer:3f2a9c01" });
    expect(result.record.items[0]).toMatchObject({
      kind: "INPUT",
      data: { user: { id: null, username: "bearer:3f2a9c01", email: null } },
    });
  });
});
