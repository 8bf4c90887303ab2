import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noteCellRejection } from "../../src/engine/cell.js";
import type { Item } from "../../src/engine/record.js";
import { runDefinition } from "../_helpers.js";

// As bin/bass.js does: a rejection a cell left is noted for its cell, never the test process's failure.
const guard = (reason: unknown, promise: Promise<unknown>) => {
  if (!noteCellRejection(reason, promise)) throw reason;
};
beforeAll(() => {
  process.on("unhandledRejection", guard);
});
afterAll(() => {
  process.off("unhandledRejection", guard);
});

function failures(items: readonly Item[]) {
  return items.flatMap((item) => (item.kind === "FAILURE" ? [item.error] : []));
}

const hook = (code: string, more = "") => `name: a\nbefore_hook: ${JSON.stringify(code)}\n${more}`;

describe("cells that await or start promise work (SPEC §13.1)", () => {
  it("awaits a hook that awaits, and keeps what it set", async () => {
    const result = await runDefinition(
      hook(
        "const n = await Promise.resolve(20)\nkeep({ n: n + 1 })",
        "on_success_hook: output.payload = { n }\n",
      ),
      { payload: {} },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual({ n: 21 });
  });

  it("awaits a hook whose value is a promise, and fails the run with its rejection as a cell error", async () => {
    const result = await runDefinition(hook('Promise.reject(new Error("boom"))'), { payload: {} });
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(500);
    expect(failures(result.record.items)).toEqual([
      expect.objectContaining({ code: "cell_error", cell: "before_hook", message: "a: before_hook: boom" }),
    ]);
  });

  it.each([
    ["promise work that loops", "Promise.resolve().then(() => { while (true) {} })"],
    ["an await that never settles", "await new Promise(() => {})"],
    ["a loop whose every turn is slow", "while (true) new Uint8Array(2e7).fill(1)"],
  ])("ends %s at the cell's time limit with a 504", async (_name, code) => {
    const started = performance.now();
    const result = await runDefinition(hook(code), { payload: {} }, { cellTimeoutMs: 100 });
    expect(result.output.status).toBe(504);
    expect(failures(result.record.items)[0]).toMatchObject({ code: "cell_timeout", cell: "before_hook" });
    // A bound for the test's sake only, far above the limit: the run ends instead of hanging.
    expect(performance.now() - started).toBeLessThan(2100);
  });

  it("fails an awaiting cell whose promise work it left rejected", async () => {
    const result = await runDefinition(
      hook('Promise.reject(new Error("left behind"))\nawait Promise.resolve()'),
      { payload: {} },
    );
    expect(result.status).toBe("failure");
    expect(failures(result.record.items)[0]?.message).toBe(
      "a: before_hook: a promise the cell started was rejected and nobody handled it: left behind",
    );
  });

  it("fails a field mapping that gives a promise, with a message saying where await works", async () => {
    const result = await runDefinition(
      `name: a
service_requests:
  - formula_variable: t
    system: transform
    field_mappings:
      - { field: body, value: "Promise.resolve(1)" }
`,
      { payload: {} },
    );
    expect(result.status).toBe("failure");
    expect(failures(result.record.items)[0]?.message).toMatch(
      /field_mappings\[0\]\.value: gives a promise where its value is needed at once; await works in hooks, call_if and call_for_each/,
    );
  });

  it("awaits call_if and call_for_each", async () => {
    const result = await runDefinition(
      `name: a
on_success_hook: output.payload = t.map((call) => call && call.response.payload.body)
service_requests:
  - formula_variable: t
    system: transform
    call_for_each: await Promise.resolve([1, 2, 3])
    call_if: await Promise.resolve(sritem !== 2)
    field_mappings:
      - { field: body, value: sritem }
`,
      { payload: {} },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual([1, null, 3]);
  });
});
