import { describe, expect, it } from "vitest";
import type { Namespace } from "../../src/engine/cell.js";
import { BassError } from "../../src/errors.js";
import { compileHook } from "./_compile.js";

/** Compiles `code` as the before_hook of a definition whose file starts with `name: a` on line 1. */
function compile(code: string, names: string[] = ["input", "output", "keep"]) {
  return compileHook(code, { names });
}

const namespace = (values: Record<string, unknown> = {}): Namespace =>
  Object.assign(Object.create(null), values);
const forever = Number.POSITIVE_INFINITY;

describe("cells", () => {
  it.each([
    ["input.payload.a + 1", { input: { payload: { a: 41 } } }, 42],
    ["({ a: 1 }).a", {}, 1],
    ["const x = 2\nreturn x * input.n", { input: { n: 21 } }, 42],
    ["let sum = 0\nfor (const v of input.list) sum += v\nreturn sum", { input: { list: [1, 2, 3] } }, 6],
    ["typeof notKept", {}, "undefined"],
    ["kept + 1", { kept: 1 }, 2],
    ["const o = { input }\nreturn o.input.x", { input: { x: 7 } }, 7],
    ["Math.max(1, 2) + JSON.parse('3')", {}, 5],
    ["[1, 2].map((n) => n * 2).join(',')", {}, "2,4"],
  ])("runs %j", (code, values, expected) => {
    expect(compile(code).run(namespace(values), forever)).toBe(expected);
  });

  it("writes through to namespace objects and reassigns namespace names", () => {
    const ns = namespace({ output: { status: 200 }, input: {} });
    compile("output.status = 201\ninput = { replaced: true }").run(ns, forever);
    expect(ns.output).toEqual({ status: 201 });
    expect(ns.input).toEqual({ replaced: true });
  });

  it.each(["process.exit(1)", "require('node:fs')", "globalThis.process", "eval('1')"])(
    "has no %s",
    (code) => {
      expect(() => compile(code).run(namespace(), forever)).toThrow(/is not defined/);
    },
  );

  it("names the integration, the cell and the file line of a runtime error", () => {
    const cell = compile("const a = 1\nconst b = null\nreturn b.x");
    const error = (() => {
      try {
        cell.run(namespace(), forever);
      } catch (thrown) {
        return thrown as BassError;
      }
    })();
    expect(error).toBeInstanceOf(BassError);
    expect(error?.code).toBe("CELL_ERROR");
    expect(error?.cell).toBe("before_hook");
    expect(error?.position).toEqual({ file: "a.yaml", line: 5, column: 1 });
    expect(error?.message).toMatch(/^a: before_hook: Cannot read properties of null/);
  });

  it("ends an endless loop at its deadline, and the next run works", () => {
    const cell = compile("let n = 0\nwhile (true) n++");
    expect(() => cell.run(namespace(), performance.now() + 20)).toThrow(
      expect.objectContaining({ code: "CELL_TIMEOUT" }),
    );
    expect(() => compile("for (;;) {}").run(namespace(), performance.now() + 20)).toThrow(/time limit/);
    expect(compile("input.n").run(namespace({ input: { n: 3 } }), forever)).toBe(3);
  });
});
