import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine } from "../../src/engine/engine.js";
import type { Item } from "../../src/engine/types.js";
import { runDefinition } from "../_helpers.js";

// As bin/bass.cjs does: a rejection a cell left is noted for its cell, never the test process's failure.
const engine = createEngine();
const guard = (reason: unknown, promise: Promise<unknown>) => {
  if (!engine.rejections.note(reason, promise)) throw reason;
};
/** A run of the guarded engine's project: its cells' rejections are noted by `guard`. */
const runGuarded = (...[definition, input, options]: Parameters<typeof runDefinition>) =>
  runDefinition(definition, input, { ...options, engine });

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
    const result = await runGuarded(
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
    const result = await runGuarded(hook('Promise.reject(new Error("boom"))'), { payload: {} });
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
    const result = await runGuarded(hook(code), { payload: {} }, { cellTimeoutMs: 100 });
    expect(result.output.status).toBe(504);
    expect(failures(result.record.items)[0]).toMatchObject({ code: "cell_timeout", cell: "before_hook" });
    // A bound for the test's sake only, far above the limit: the run ends instead of hanging.
    expect(performance.now() - started).toBeLessThan(2100);
  });

  it("fails an awaiting cell whose promise work it left rejected", async () => {
    const result = await runGuarded(
      hook('Promise.reject(new Error("left behind"))\nawait Promise.resolve()'),
      { payload: {} },
    );
    expect(result.status).toBe("failure");
    expect(failures(result.record.items)[0]?.message).toBe(
      "a: before_hook: a promise the cell started was rejected and nobody handled it: left behind",
    );
  });

  it("awaits field mappings and validation rules", async () => {
    const result = await runGuarded(
      `name: a
validation_rules:
  - { type: INPUT, field: "await Promise.resolve(input.payload.n)", rule: "await Promise.resolve(_ > 1)", message: too small }
on_success_hook: output.payload = t.response.payload
service_requests:
  - formula_variable: t
    system: transform
    field_mappings:
      - { field: body, value: "Promise.resolve(input.payload.n)" }
      - { field: "list[await Promise.resolve(0)]", value: "await Promise.resolve('first')", include_if: "await true" }
`,
      { payload: { n: 2 } },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual({ body: 2, list: ["first"] });
    const promised = await runGuarded(
      `name: a\nvalidation_rules:\n  - { type: INPUT, field: input.payload.n, rule: "Promise.resolve(_ > 1)", message: too small }\n`,
      { payload: { n: 2 } },
    );
    expect(promised.status).toBe("success");
  });

  it("fails a mask's apply_if that gives a promise: it must decide at once", async () => {
    const result = await runGuarded(
      "name: a\nmasks:\n  - { type: INPUT, field: tax_id, apply_if: Promise.resolve(true) }\n",
      { payload: { tax_id: "123-45-6789" } },
    );
    expect(result.status).toBe("failure");
    expect(failures(result.record.items)[0]?.message).toBe(
      "a: masks[0].apply_if: gives a promise, and a mask's apply_if must decide at once",
    );
  });

  it("awaits call_if and call_for_each", async () => {
    const result = await runGuarded(
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

describe("a rejection left while two runs of one integration wait", () => {
  it("fails neither run rather than the wrong one", async () => {
    const { openProjectFiles } = await import("../../src/project/open-files.js");
    const { runIntegration } = await import("../../src/engine/run.js");
    const { createTempDir, defaultProjectFile } = await import("../_helpers.js");
    const code =
      'if (input.payload.leave) Promise.reject(new Error("left by A"))\nfor (let i = 0; i < input.payload.waits; i++) await Promise.resolve()';
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/a.yaml": hook(code),
    });
    const { project } = openProjectFiles({ cwd: dir, env: {} });
    const integration = project.compile(project.definitions[0] as never);
    const run = (payload: object) =>
      runIntegration(
        integration,
        { payload },
        {
          ...project.limits,
          adapters: () => {
            throw new Error("none");
          },
          trigger: "test",
          secrets: [],
        },
      );
    const [a, b] = await Promise.all([run({ leave: true, waits: 5 }), run({ leave: false, waits: 1 })]);
    expect(b.status).toBe("success");
    expect(a.status).toBe("success");
  });
});
