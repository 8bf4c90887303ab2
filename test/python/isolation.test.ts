import { beforeAll, describe, expect, it } from "vitest";
import type { Item } from "../../src/engine/types.js";
import { loadPython } from "../../src/python/runtime.js";
import { runDefinition } from "../_helpers.js";

beforeAll(async () => {
  await loadPython();
}, 30_000);

function python(hook: string): string {
  return `name: py\nlanguage: python\non_success_hook: |\n${hook
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n")}\n`;
}

const failureOf = (items: readonly Item[]) =>
  items.flatMap((item) => (item.kind === "FAILURE" ? [item.error.message] : []))[0];

async function run(hook: string) {
  const result = await runDefinition(python(hook), { payload: {} });
  return { output: result.output.payload, failure: failureOf(result.record.items) };
}

describe("a Python cell cannot reach the host", () => {
  // Lint refuses these imports written out (cell-forbidden); exec hides them from it, as a determined cell would.
  it.each([
    ["import js", 'exec("import js")'],
    ["from js import …", 'exec("from js import process")'],
    ["import pyodide_js", 'exec("import pyodide_js")'],
    ["import pyodide.code", 'exec("import pyodide.code")'],
    ["importlib", "import importlib\nimportlib.import_module('js')"],
    ["__import__", "__import__('pyodide_js')"],
    ["ctypes", "import ctypes"],
  ])("refuses %s at run time", async (_name, hook) => {
    const { failure } = await run(hook);
    expect(failure).toMatch(/cannot import (js|pyodide|ctypes)|No module named '(js|pyodide_js)'/);
  });

  // What a cell can reach (cells.py's names through __main__ or a special function's __globals__, the
  // built-ins) decides nothing: each attack switches off what it can first.
  it.each([
    [
      "the in-cell flag",
      "import __main__\n__main__._in_cell = False\nimport importlib\nimportlib.import_module('ctypes')",
    ],
    [
      "the refused names",
      "end.__globals__['_FORBIDDEN'] = frozenset()\nimport importlib\nimportlib.import_module('ctypes')",
    ],
    [
      "str",
      "import builtins\nbuiltins.str = lambda value: 'json'\nimport importlib\nimportlib.import_module('ctypes')",
    ],
    ["the hook's defaults", "import __main__\n__main__._audit.__defaults__ = None"],
  ])("refuses ctypes and the hook's change whatever a cell switched off first (%s)", async (_name, hook) => {
    const { output, failure } = await run(`${hook}\noutput.payload = 'reached'`);
    expect(output).not.toBe("reached");
    expect(failure).toBeDefined();
  });

  it("finds the JavaScript modules gone from sys.modules", async () => {
    const { output } = await run(
      "import sys\noutput.payload = [name for name in ('js', 'pyodide_js') if name in sys.modules]",
    );
    expect(output).toEqual([]);
  });

  it("makes no code from a string through any JavaScript value a cell can reach", async () => {
    const { failure } = await run(
      [
        "to_js = end.__globals__['to_js']",
        "made = to_js([1, 2])",
        "output.payload = made.constructor.constructor('return typeof process')()",
      ].join("\n"),
    );
    expect(failure).toMatch(/EvalError: code cannot be made from a string here/);
  });

  it("refuses to list every object of the interpreter", async () => {
    const { failure } = await run("import gc\ngc.get_objects()");
    expect(failure).toMatch(/a cell cannot call gc.get_objects/);
  });

  it("puts back the JavaScript built-ins a cell changed, before a cell of another run", async () => {
    const { failure } = await run(
      [
        "made = end.__globals__['to_js']([1])",
        "made.constructor.prototype.polluted = 5",
        "made.constructor.prototype.copyWithin = None",
      ].join("\n"),
    );
    expect(failure).toBeUndefined();
    const { output } = await run("output.payload = 1");
    expect(output).toBe(1);
    expect(([] as unknown as { polluted?: unknown }).polluted).toBeUndefined();
    expect(typeof [].copyWithin).toBe("function");
  });
});

describe("each Python run starts from the same interpreter state", () => {
  it.each([
    ["a module taken from sys.modules", 'import sys\nsys.modules["re"] = None'],
    ["a standard module's function", 'import json\njson.dumps = lambda *a, **k: "hacked"'],
    ["a built-in", "import builtins\nbuiltins.len = lambda x: -1"],
    ["the cells' own built-ins", "__builtins__.len = lambda x: -1"],
    ["the import system", "import sys\nsys.meta_path.clear()\nsys.path.clear()"],
  ])("after a run that changed %s", async (_name, attack) => {
    await run(attack);
    const { output, failure } = await run(
      'import re, json\noutput.payload = [json.dumps({"a": 1}), bool(re.match("a", "a")), len([1, 2])]',
    );
    expect(failure).toBeUndefined();
    expect(output).toEqual(['{"a": 1}', true, 2]);
  });

  it("with a module another run imported imported afresh", async () => {
    await run("import statistics\nstatistics.mean = lambda xs: -1");
    const { output } = await run("import statistics\noutput.payload = statistics.mean([1, 2, 3])");
    expect(output).toBe(2);
  });
});

describe("an error of bass's side a Python cell catches", () => {
  it("has no stack naming bass's files", async () => {
    const { output, failure } = await run(
      [
        "try:",
        '    import_module("no_such_module")',
        "except Exception as error:",
        "    output.payload = [str(error), str(error.js_error.stack)]",
      ].join("\n"),
    );
    expect(failure).toBeUndefined();
    const [message, stack] = output as [string, string];
    expect(message).toContain("no_such_module");
    expect(stack).not.toContain(process.cwd());
    expect(stack).not.toMatch(/file:|node:|\n\s+at /);
  });
});
