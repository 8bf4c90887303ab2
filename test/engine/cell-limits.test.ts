import { describe, expect, it } from "vitest";
import type { Item } from "../../src/engine/types.js";
import { defaultProjectFile, runDefinition } from "../_helpers.js";

function failures(items: readonly Item[]) {
  return items.flatMap((item) => (item.kind === "FAILURE" ? [item.error] : []));
}

describe("a cell that runs longer than cell_timeout_ms throws a time-out error (SPEC §4.1)", () => {
  // Function bodies check the deadline as loop bodies do, so recursion without a loop ends too.
  it.each([
    ["deep recursion", "function f(n) { return n === 0 ? 0 : f(n - 1) + f(n - 1) }\nreturn f(24)"],
    [
      "recursion through an arrow function",
      "const f = (n) => (n === 0 ? 0 : f(n - 1) + f(n - 1))\nreturn f(24)",
    ],
    // Once past the deadline every check throws, so a catch inside the loop cannot swallow the time-out.
    [
      "a loop that catches the time-out of the loop inside it",
      "while (true) { try { while (true) {} } catch {} }",
    ],
    [
      "a loop that catches the time-out of a call",
      "const f = () => 1\nwhile (true) { try { f() } catch (e) {} }",
    ],
    [
      "a loop that catches the time-out of two calls",
      "const f = () => g()\nconst g = () => 1\nwhile (true) { try { f() } catch {} }",
    ],
    ["a loop whose finally continues it", "for (;;) { try { for (;;) {} } finally { continue } }"],
  ])("ends %s with a 504", async (_name, code) => {
    const result = await runDefinition(
      `name: slow\nbefore_hook: ${JSON.stringify(code)}\n`,
      { payload: {} },
      {
        cellTimeoutMs: 20,
      },
    );
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(504);
    expect(failures(result.record.items)).toEqual([expect.objectContaining({ code: "cell_timeout" })]);
  });
});

describe("an error names the 1-based line of the definition file (SPEC §4.1)", () => {
  it.each([
    ["a thrown string", 'name: p\nbefore_hook: |\n  const a = 1\n  const b = 2\n  throw "bad thing"\n', 5],
    ["a thrown object", "name: p\nbefore_hook: |\n  const a = 1\n  const b = 2\n  throw { code: 7 }\n", 5],
  ])("reports the line of %s", async (_name, definition, line) => {
    const result = await runDefinition(definition, { payload: {} });
    expect(failures(result.record.items)).toEqual([expect.objectContaining({ cell: "before_hook", line })]);
  });
});

describe("limits.output_bytes", () => {
  const project = (limit: number) => `${defaultProjectFile}limits:\n  output_bytes: ${limit}\n`;

  it("fails a run whose output payload is longer, naming the limit, and answers 500", async () => {
    const result = await runDefinition(
      "name: a\non_success_hook: |\n  output.payload = { s: 'é'.repeat(600) }\n",
      { payload: {} },
      { project: project(1000) },
    );
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(500);
    expect(failures(result.record.items)).toEqual([
      {
        code: "output_invalid",
        message:
          "output.payload is 1208 bytes, over limits.output_bytes (1000): send less, or raise the limit in the project file",
      },
    ]);
  });

  it("counts a byte string's bytes, and lets a payload of the limit through", async () => {
    const bytes = await runDefinition(
      "name: a\non_success_hook: |\n  output.headers = { 'Content-Type': 'text/plain' }\n  output.payload = new TextEncoder().encode('x'.repeat(1001))\n",
      { payload: {} },
      { project: project(1000) },
    );
    expect(failures(bytes.record.items)[0]?.message).toMatch(
      /^output.payload is 1001 bytes, over limits.output_bytes/,
    );
    const fits = await runDefinition(
      "name: a\non_success_hook: |\n  output.payload = 'x'.repeat(998)\n",
      { payload: {} },
      { project: project(1000) },
    );
    expect(fits.status).toBe("success");
    expect(fits.outputJson).toHaveLength(1000);
  });
});
