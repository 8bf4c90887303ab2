import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Namespace } from "../../src/engine/cell.js";
import { compileHook } from "./_compile.js";

/** `code` as a before_hook in a realm whose cells may grow the thread's memory by `memoryMb`. */
function compile(code: string, memoryMb: number | undefined) {
  return compileHook(code, { names: ["output"], ...(memoryMb !== undefined && { cellMemoryMb: memoryMb }) });
}

const namespace = (): Namespace => Object.assign(Object.create(null), { output: {} });
const soon = () => performance.now() + 60_000;

describe("limits.cell_memory_mb on the thread that runs the cell", () => {
  it("ends a cell that keeps growing its memory, though it catches the error", () => {
    const bomb = compile(
      "const kept = []\nfor (;;) {\n  try {\n    kept.push(new Array(1024).fill(kept.length))\n  } catch {}\n}",
      32,
    );
    expect(() => bomb.run(namespace(), soon())).toThrow(
      expect.objectContaining({
        code: "CELL_MEMORY",
        message: "a: before_hook: the cell grew its thread's memory by more than limits.cell_memory_mb (32)",
      }),
    );
  });

  it("lets a cell make garbage far past the limit", () => {
    const churn = compile(
      "let made = 0\nfor (let round = 0; round < 400; round++) made += new Array(64 * 1024).fill(round).length\noutput.made = made",
      32,
    );
    const ns = namespace();
    churn.run(ns, soon());
    expect(ns.output).toEqual({ made: 400 * 64 * 1024 });
  });

  it("leaves cells unbounded where no limit is given (a worker, whose heap V8 bounds)", () => {
    const grows = compile(
      "const kept = []\nfor (let i = 0; i < 6000; i++) kept.push(new Array(1024).fill(i))\noutput.n = kept.length",
      undefined,
    );
    const ns = namespace();
    grows.run(ns, soon());
    expect(ns.output).toEqual({ n: 6000 });
  });

  it("sets --expose-gc back once it has the thread's gc: contexts made after have none", () => {
    // In a process of its own: this one runs with --expose-gc (vitest.config.ts).
    const heap = join(import.meta.dirname, "../../dist/heap.js");
    const script = `const { collectGarbage } = await import(${JSON.stringify(heap)}); collectGarbage(); const { runInNewContext } = await import("node:vm"); process.stdout.write(runInNewContext("typeof gc") + " " + typeof globalThis.gc);`;
    const seen = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(seen).toBe("undefined undefined");
  });
});
