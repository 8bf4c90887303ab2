import { beforeAll, describe, expect, it } from "vitest";
import { loadPython } from "../../src/python/runtime.js";
import { createTempDir, lintDefinition, runCli } from "../_helpers.js";

beforeAll(async () => {
  await loadPython();
}, 30_000);

const findings = (definition: string) =>
  lintDefinition(definition).map(({ line, column, rule, message }) => ({ line, column, rule, message }));

describe("lint of Python cells", () => {
  it("reports a syntax error with CPython's message at the file's line and column", () => {
    expect(findings("name: py\nlanguage: python\nbefore_hook: |\n  a = 1\n  if a\n      b = 2\n")).toEqual([
      { line: 5, column: 7, rule: "cell-syntax", message: "before_hook: SyntaxError: expected ':'" },
    ]);
  });

  it("reports loop variables out of scope, unknown formula variables and value mapping sets", () => {
    const definition = `name: py
language: python
value_mapping_sets:
  - name: status
    mappings: [{ from: A, to: active }]
service_requests:
  - formula_variable: core
    system: transform
    call_for_each: input.payload.items
    field_mappings:
      - field: id
        value: sritem.id
before_hook: |
  keep(total=1)
on_success_hook: |
  x = sritem
  y = crm.response.payload
  z = map_value("colour", core.response.payload.status)
  w = map_value("status", total.request)
`;
    expect(findings(definition)).toEqual([
      {
        line: 16,
        column: 7,
        rule: "loop-variable-scope",
        message: "on_success_hook: sritem is not bound in this cell",
      },
      {
        line: 17,
        column: 7,
        rule: "unknown-formula-variable",
        message: 'on_success_hook: no service request has formula variable "crm"; formula variables: "core"',
      },
      {
        line: 18,
        column: 17,
        rule: "unknown-value-mapping-set",
        message: 'on_success_hook: no value mapping set "colour" in this integration; known: "status"',
      },
    ]);
  });

  it("forbids the modules that reach bass's JavaScript world, whichever way they are imported", () => {
    const definition =
      "name: py\nlanguage: python\nbefore_hook: |\n  import json, js\n  from pyodide.ffi import to_js\n  import pyodide_js as p\n";
    expect(findings(definition)).toEqual(
      ["js", "pyodide", "pyodide_js"].map((name, index) => ({
        line: 4 + index,
        column: 3,
        rule: "cell-forbidden",
        message: `before_hook: cells cannot import ${name}: it reaches the JavaScript world bass runs in, not the cell's`,
      })),
    );
  });

  it("reads a one-line cell with blanks around it as it runs: an expression, at its own column", () => {
    expect(findings('name: py\nlanguage: python\nbefore_hook: "  sritem.id "\n')).toEqual([
      {
        line: 3,
        column: 17,
        rule: "loop-variable-scope",
        message: "before_hook: sritem is not bound in this cell",
      },
    ]);
  });

  it("says nothing of names a cell sets, imports or gets as a parameter", () => {
    const definition =
      "name: py\nlanguage: python\nbefore_hook: |\n  import uuid\n  def f(sritem):\n      return sritem\n  crm = {'request': 1}\n  retvalue = [f(x) for x in range(3)], uuid.uuid4(), crm\n";
    expect(findings(definition)).toEqual([]);
  });
});

describe("bass validate of Python definitions", () => {
  it("lints with CPython a definition that says language: python in any YAML form", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/flow.yaml": '{ name: flow, language: "python", before_hook: "x = (" }\n',
      "integrations/plain.yaml": "name: plain\nbefore_hook: output.status = 201\n",
    });
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/flow\.yaml\n {2}1:\d+ +error .*cell-syntax/);
    expect(result.stdout).not.toMatch(/plain\.yaml/);
  }, 30_000);
});
