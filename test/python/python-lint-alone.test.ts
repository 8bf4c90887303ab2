import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createReferenceContext } from "../../src/definition/lint/lint.js";
import { lintPaths } from "../../src/definition/lint/lint-paths.js";
import { pythonRuntime } from "../../src/python/runtime.js";
import { createTempDir, runCli } from "../_helpers.js";

// This file never loads Python: each test file runs in a worker of its own.

const definition = (hook: string) =>
  `name: py\nlanguage: python\nservice_requests:\n  - formula_variable: core\n    system: transform\non_success_hook: |\n${hook}`;

function lint(text: string) {
  const dir = createTempDir({ "integrations/a.yaml": text });
  const [found] = lintPaths([join(dir, "integrations/a.yaml")], {
    cwd: dir,
    env: {},
    context: createReferenceContext(undefined),
  });
  if (!found) throw new Error("no lint");
  return found;
}

describe("lint of Python cells without CPython", () => {
  it("finds what CPython would in cells it can read, and leaves the runtime unloaded", () => {
    const lint_ = lint(
      definition("  x = sritem\n  y = crm.response.payload\n  z = f'{core.response.payload}'\n"),
    );
    expect(lint_.needsPython).toBeUndefined();
    expect(lint_.issues.map(({ line, column, rule }) => ({ line, column, rule }))).toEqual([
      { line: 7, column: 7, rule: "loop-variable-scope" },
      { line: 8, column: 7, rule: "unknown-formula-variable" },
    ]);
    expect(pythonRuntime()).toBeUndefined();
  });

  it("says a missing colon as CPython does, without it", () => {
    const lint_ = lint(definition("  x = sritem\n  if x\n      y = 2\n"));
    expect(lint_.needsPython).toBeUndefined();
    expect(lint_.issues.map(({ line, column, rule, message }) => ({ line, column, rule, message }))).toEqual([
      { line: 8, column: 7, rule: "cell-syntax", message: "on_success_hook: SyntaxError: expected ':'" },
    ]);
    expect(pythonRuntime()).toBeUndefined();
  });

  it("asks for CPython, saying nothing yet, where a cell's error is one it words", () => {
    const lint_ = lint(definition("  x = sritem\n  y = 1 +\n"));
    expect(lint_.needsPython).toBe(true);
    expect(lint_.issues).toEqual([]);
  });

  it("loads CPython in bass validate only for a cell it must read, and reports its message", async () => {
    const project = (hook: string) =>
      createTempDir({
        "bass.config.yaml": "systems:\n  transform:\n    adapter: echo\n",
        "integrations/a.yaml": definition(hook),
      });
    expect((await runCli(["validate"], { cwd: project("  retvalue = 1\n") })).code).toBe(0);
    expect(pythonRuntime()).toBeUndefined();
    const result = await runCli(["validate"], { cwd: project("  y = 1 +\n") });
    expect(result.stdout).toContain("7:10  error  on_success_hook: SyntaxError: invalid syntax  cell-syntax");
    expect(pythonRuntime()).toBeDefined();
  }, 30_000);
});
