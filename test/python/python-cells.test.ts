import { beforeAll, describe, expect, it } from "vitest";
import type { Item } from "../../src/engine/types.js";
import { loadPython } from "../../src/python/runtime.js";
import { createTempDir, runDefinition } from "../_helpers.js";

beforeAll(async () => {
  await loadPython();
}, 30_000);

/** A Python definition whose on_success_hook is `hook`. */
function python(hook: string, extra = ""): string {
  return `name: py\nlanguage: python\n${extra}on_success_hook: |\n${hook
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n")}\n`;
}

async function outputOf(hook: string, payload: unknown = {}, extra = ""): Promise<unknown> {
  const result = await runDefinition(python(hook, extra), { payload });
  const failure = result.record.items.find((item) => item.kind === "FAILURE");
  if (failure?.kind === "FAILURE") throw new Error(failure.error.message);
  return result.output.payload;
}

const failures = (items: readonly Item[]) =>
  items.flatMap((item) => (item.kind === "FAILURE" ? [item.error] : []));

describe("Python cells", () => {
  it("evaluates a one-line expression cell and takes retvalue from statements", async () => {
    const definition = `name: py
language: python
service_requests:
  - formula_variable: made
    system: transform
    field_mappings:
      - field: doubled
        value: input.payload.n * 2
      - field: id
        value: |
          import uuid
          retvalue = uuid.UUID(int=input.payload.n)
      - field: none
        nullable: true
        value: |
          x = 1
`;
    const result = await runDefinition(definition, { payload: { n: 21 } });
    const request = result.record.items.find((item) => item.kind === "REQUEST");
    expect(request?.kind === "REQUEST" && request.request.payload).toEqual({
      doubled: 42,
      id: "00000000-0000-0000-0000-000000000015",
      none: null,
    });
  });

  it("reads payloads as Flex: attributes or items, a missing key a falsy null at any depth", async () => {
    const payload = { email: "Ada@Example.com", "top:level": 1, list: [1, 2] };
    expect(
      await outputOf(
        [
          "output.payload = {",
          "  'attr': input.payload.email.lower(),",
          "  'item': input.payload['top:level'],",
          "  'missing': bool(input.payload.nope.deeper.still),",
          "  'is_none': input.payload.nope == None,",
          "  'or': input.payload.nope or 'fallback',",
          "  'len': len(input.payload.list),",
          "  'sum': sum(input.payload.list),",
          "  'in': 'email' in input.payload,",
          "  'equal': input.payload.list == [1, 2],",
          "  'text': f'{input.payload.list}',",
          "  'keys': sorted(input.payload.keys()),",
          "}",
        ].join("\n"),
        payload,
      ),
    ).toEqual({
      attr: "ada@example.com",
      item: 1,
      missing: false,
      is_none: true,
      or: "fallback",
      len: 2,
      sum: 3,
      in: true,
      equal: true,
      text: "[1, 2]",
      keys: ["email", "list", "top:level"],
    });
  });

  it("runs a match statement whose value pattern names the run's data", async () => {
    const hook = [
      "shape = {'kind': input.payload.kind, 'x': 1, 'y': 2}",
      "match shape:",
      "    case {'kind': input.payload.wanted, **others} if input.payload.strict:",
      "        found = sorted(others)",
      "    case _:",
      "        found = None",
      "output.payload = {'found': found}",
    ].join("\n");
    const payload = { strict: true, kind: "point", wanted: "point" };
    expect(await outputOf(hook, payload)).toEqual({ found: ["x", "y"] });
    expect(await outputOf(hook, { ...payload, wanted: "line" })).toEqual({ found: null });
  });

  it("writes through a Flex to the run's data: append, item and attribute assignment", async () => {
    expect(
      await outputOf(
        [
          "customers = input.payload.customers",
          "customers.append({'id': 3})",
          "customers[0]['name'] = 'first'",
          "input.payload.flag = True",
          "output.payload = {'customers': input.payload.customers, 'flag': input.payload.flag}",
        ].join("\n"),
        { customers: [{ id: 1 }, { id: 2 }] },
      ),
    ).toEqual({ customers: [{ id: 1, name: "first" }, { id: 2 }, { id: 3 }], flag: true });
  });

  it("makes what a cell gives plain data: Decimal as text, dates as ISO text, tuples as lists, objects as str", async () => {
    expect(
      await outputOf(
        [
          "import datetime, decimal as d",
          "output.payload = {",
          "  'money': d.Decimal('12.30'),",
          "  'sum': decimal('0.1') + decimal('0.2'),",
          "  'day': datetime.date(2026, 11, 26),",
          "  'pair': (1, 'a'),",
          "  'obj': object.__name__,",
          "}",
        ].join("\n"),
      ),
    ).toEqual({ money: "12.30", sum: "0.3", day: "2026-11-26", pair: [1, "a"], obj: "object" });
  });

  it("keeps values across cells with keep(), and locals not", async () => {
    const definition = `name: py
language: python
before_hook: |
  keep(total=3)
  local = 1
on_success_hook: |
  output.payload = {'total': total, 'local': 'local' in dir()}
`;
    const result = await runDefinition(definition, { payload: {} });
    expect(result.output.payload).toEqual({ total: 3, local: false });
  });

  it("has the special functions with their Python signatures", async () => {
    const definition = python(
      [
        "historize({'a': 1}, 'first')",
        "add_run_label('vip')",
        "print('hello', 42)",
        "end({'done': True}, 202)",
      ].join("\n"),
    );
    const result = await runDefinition(definition, { payload: {} });
    expect(result.output).toMatchObject({ status: 202, payload: { done: true } });
    expect(result.record.labels).toEqual(["vip"]);
    const kinds = result.record.items.map((item) =>
      item.kind === "DEBUG"
        ? ["DEBUG", item.label, item.data]
        : item.kind === "LOG"
          ? ["LOG", item.data]
          : [item.kind],
    );
    expect(kinds).toEqual([["INPUT"], ["DEBUG", "first", { a: 1 }], ["LOG", "hello 42"], ["OUTPUT"]]);
  });

  it("maps values with map_value, and writes and lists the run's files", async () => {
    const sets = "value_mapping_sets:\n  - name: status\n    mappings:\n      - { from: A, to: active }\n";
    expect(
      await outputOf(
        [
          "with open_file('out.csv', 'w') as f:",
          "    f.write('a,b\\n')",
          "output.payload = {'status': map_value('status', 'A'), 'files': list_files(), 'text': open_file('out.csv').read()}",
        ].join("\n"),
        {},
        sets,
      ),
    ).toEqual({ status: "active", files: ["out.csv"], text: "a,b\n" });
  });

  it("fails a run with the Python error at the definition file's line", async () => {
    const result = await runDefinition(python("a = 1\nb = {}\nc = b['missing']"), { payload: {} });
    expect(failures(result.record.items)).toEqual([
      {
        code: "cell_error",
        message: "py: on_success_hook: KeyError: 'missing'",
        cell: "on_success_hook",
        file: expect.stringMatching(/a\.yaml$/),
        line: 6,
      },
    ]);
  });

  it("stops a Python loop at the cell's time limit, and the next run goes on", async () => {
    const looping = await runDefinition(
      python("while True:\n    pass"),
      { payload: {} },
      { cellTimeoutMs: 100 },
    );
    expect(looping.output.status).toBe(504);
    const [timeout] = failures(looping.record.items);
    expect(timeout?.code).toBe("cell_timeout");
    // The loop's line or its body's: wherever the interrupt found it.
    expect([4, 5]).toContain(timeout?.line);
    // A cell that catches everything is stopped all the same: the time-out is raised again at its next line.
    const stubborn = await runDefinition(
      python("while True:\n    try:\n        while True: pass\n    except BaseException:\n        pass"),
      { payload: {} },
      { cellTimeoutMs: 100 },
    );
    expect(stubborn.output.status).toBe(504);
    expect(await outputOf("output.payload = 'after'")).toBe("after");
  });

  it("refuses to compile a cell with a syntax error, at its line and column", async () => {
    await expect(runDefinition(python("a = 1\nif a\n    b = 2"), { payload: {} })).rejects.toThrow(
      /on_success_hook: SyntaxError: expected ':'/,
    );
  });
});

describe("Python validation rules", () => {
  it("see the field's value as _, None included", async () => {
    const definition = `name: py
language: python
validation_rules:
  - type: INPUT
    field: input.payload.email
    rule: _ is not None and '@' in _
    message: email must be an e-mail address
`;
    const bad = await runDefinition(definition, { payload: {} });
    expect(bad.record.items.find((item) => item.kind === "VALIDATION_FAILURE")).toMatchObject({
      message: "email must be an e-mail address",
    });
    const good = await runDefinition(definition, { payload: { email: "ada@example.com" } });
    expect(good.status).toBe("success");
  });
});

describe("Python values as JSON", () => {
  it("keeps None as null in what a cell gives, also within lists and dicts", async () => {
    const result = await runDefinition(
      python("output.payload = {'a': None, 'b': [None, 1], 'c': input.payload.nope}"),
      {
        payload: {},
      },
    );
    expect(result.output.payload).toEqual({ a: null, b: [null, 1], c: null });
  });
});

describe("import_module in Python cells", () => {
  const project = "systems: {}\nmodules:\n  helpers: modules/helpers.py\n  scripts: modules/scripts.js\n";
  const withModules = async (hook: string) => {
    const dir = createTempDir({
      "bass.config.yaml": project,
      "modules/helpers.py":
        "import decimal\nRATE = decimal.Decimal('0.25')\n\ndef fee(amount):\n    return decimal.Decimal(str(amount)) * RATE\n",
      "modules/scripts.js": "exports.x = 1\n",
      "integrations/py.yaml": python(hook),
    });
    await loadPython();
    const { openProjectFiles } = await import("../../src/project/open-files.js");
    const { project: opened } = openProjectFiles({ cwd: dir, env: {} });
    const { runIntegration } = await import("../../src/engine/run.js");
    return runIntegration(
      opened.compile(opened.definitions[0] as never),
      { payload: {} },
      {
        ...opened.limits,
        adapters: () => {
          throw new Error("no systems");
        },
        trigger: "test",
        secrets: [],
      },
    );
  };

  it("gives a Python module's names, evaluated once, read-only", async () => {
    const result = await withModules(
      "helpers = import_module('helpers')\noutput.payload = {'fee': helpers.fee(100), 'same': helpers is import_module('helpers')}",
    );
    expect(result.output.payload).toEqual({ fee: "25.00", same: true });
    const changed = await withModules("import_module('helpers').RATE = 1");
    expect(failures(changed.record.items)[0]?.message).toContain(
      "AttributeError: module helpers is shared by every run: its names cannot be set",
    );
  });

  it("names the modules there are, and refuses a JavaScript one", async () => {
    const unknown = await withModules("import_module('nope')");
    expect(failures(unknown.record.items)[0]?.message).toBe(
      'py: on_success_hook: import_module: the project file has no module "nope" (it has helpers, scripts)',
    );
    const script = await withModules("import_module('scripts')");
    expect(failures(script.record.items)[0]?.message).toContain("not a Python file (.py)");
  });
});

describe("open_vault in Python cells", () => {
  it("holds a vault in a with block: items, secrets masked by value, and later runs see the changes", async () => {
    const env = { PARTNER_KEY: "pk-live-0123456789", BASS_STATE_KEY: "7".repeat(64) };
    const dir = createTempDir({
      "bass.config.yaml":
        "systems: {}\nvaults:\n  partners:\n    items:\n      acme: { limit: 100 }\n    secrets:\n      acme_key: ${env:PARTNER_KEY}\n",
      "integrations/py.yaml": python(
        [
          "with open_vault('partners') as vault:",
          "    acme = vault.get('acme')",
          "    vault.update('acme', {'limit': acme.limit + 1})",
          "    key = vault.get_secret('acme_key')",
          "    missing = vault.get('nope')",
          "historize(key, 'key')",
          "output.payload = {'limit': acme.limit, 'key': key, 'missing': missing is None or not missing}",
        ].join("\n"),
      ),
    });
    await loadPython();
    const { openProjectFiles } = await import("../../src/project/open-files.js");
    const { projectVaults } = await import("../../src/project/vaults.js");
    const { runIntegration } = await import("../../src/engine/run.js");
    const { project } = openProjectFiles({ cwd: dir, env });
    const vaults = projectVaults(project, env);
    const run = () =>
      runIntegration(
        project.compile(project.definitions[0] as never),
        { payload: {} },
        {
          ...project.limits,
          adapters: () => {
            throw new Error("no systems");
          },
          trigger: "test",
          secrets: project.secrets,
          vaults,
        },
      );
    const first = await run();
    expect(first.output.payload).toEqual({ limit: 100, key: "pk-live-0123456789", missing: true });
    expect(JSON.stringify(first.record)).not.toContain("pk-live-0123456789");
    const second = await run();
    expect((second.output.payload as { limit: number }).limit).toBe(101);
  });
});

describe("names a Python cell reads", () => {
  it("shadow built-ins with the run's own: input, and a name keep() gives a value", async () => {
    const definition = `name: py
language: python
service_requests:
  - formula_variable: made
    system: transform
    call_for_each: "[1, 2]"
    field_mappings:
      - field: item
        value: sritem
before_hook: |
  keep(first=len("ab"))
  keep(len=5)
on_success_hook: |
  output.payload = {"first": first, "len": len, "items": [m.request.payload.item for m in made], "input": input.payload.n}
`;
    const result = await runDefinition(definition, { payload: { n: 1 } });
    expect(result.output.payload).toEqual({ first: 2, len: 5, items: [1, 2], input: 1 });
  });
});
