import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import type { RunRecord } from "../../src/engine/types.js";
import { isBassError } from "../../src/errors.js";
import { createRunPool } from "../../src/pool/run-pool.js";
import { createProjectAdapters, type ProjectAdapters } from "../../src/project/adapters.js";
import { openProject, type Project } from "../../src/project/open.js";
import { projectVaults } from "../../src/project/vaults.js";
import type { RunStarted } from "../../src/runner/messages.js";
import { createTaskPlace } from "../../src/runner/run-task.js";
import { type Runner, type RunRequest, recordOf } from "../../src/runner/runner.js";
import { createThreadRunner } from "../../src/runner/thread-runner.js";

const taxId = "123-45-6789";
/** A secret of the runners' own, as serve gives them the secrets of every set it served. */
const secret = "s3cr3t-from-env";
const secrets = () => [secret];

/** A project whose integrations show what a runner hands back: masks, async starts, children, failures. */
const files = {
  "bass.config.yaml": stringify({
    systems: { echo: { adapter: "echo" } },
    limits: { cell_timeout_ms: 200 },
  }),
  "integrations/create.yaml": stringify({
    name: "create",
    masks: [{ type: "INPUT", field: "tax_id" }],
    service_requests: [
      {
        formula_variable: "person",
        system: "echo",
        service_name: "create-person",
        field_mappings: [{ field: "taxId", value: "input.payload.tax_id" }],
      },
    ],
    on_success_hook: "output.status = 201\noutput.payload = { tax: person.response.payload.taxId, n: 1 }",
  }),
  "integrations/later.yaml": stringify({ name: "later", run_async: true, before_hook: "debug('went on')" }),
  "integrations/parent.yaml": stringify({
    name: "parent",
    on_success_hook:
      "const child = await callint('create', { tax_id: input.payload.tax_id })\noutput.payload = child.payload",
  }),
  "integrations/throws.yaml": stringify({
    name: "throws",
    before_hook: "\nthrow new Error('no such customer')",
  }),
  "integrations/loops.yaml": stringify({ name: "loops", before_hook: "for (;;) {}" }),
};

/** Each runner as serve, `bass run` and `bass test` make it, over one project. */
const runners: [string, (project: Project, adapters: ProjectAdapters) => Runner][] = [
  [
    "on this thread",
    (project, adapters) =>
      createThreadRunner({
        ...createTaskPlace(project, {
          resolverFor: (choice) => adapters.resolverFor(choice),
          vaults: projectVaults(project, {}),
        }),
        secrets,
      }),
  ],
  [
    "in worker threads",
    (project) => createRunPool({ project, cwd: project.dir, env: {}, workers: 1, secrets }),
  ],
];

describe.each(runners)("the runner %s", (_name, createRunner) => {
  let runner: Runner;
  let adapters: ProjectAdapters;
  // One project for the whole suite: a pool's worker takes a while to start.
  const dir = mkdtempSync(join(tmpdir(), "bass-runners-"));
  beforeAll(async () => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const project = await openProject({ cwd: dir, env: {}, projectDir: dir });
    adapters = createProjectAdapters(project);
    runner = createRunner(project, adapters);
  });
  afterAll(async () => {
    await runner.close();
    await adapters.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const task = (integration: string, payload: unknown, more: Partial<RunRequest> = {}): RunRequest => ({
    version: 1,
    integration,
    input: { payload },
    trigger: "test",
    mockcoreUrl: undefined,
    ...more,
  });
  const kinds = (record: RunRecord) => record.items.map((item) => item.kind);

  it("answers a run's output as JSON text and its record as the history's line, masked", async () => {
    const result = await runner.run(task("create", { tax_id: taxId }, { maskTexts: [taxId, "x"] }));
    expect(result.status).toBe("success");
    expect(result.output.status).toBe(201);
    expect(JSON.parse(result.outputJson ?? "")).toEqual({ tax: taxId, n: 1 });
    expect(result.recordLine).not.toContain(taxId);
    expect(kinds(JSON.parse(result.recordLine) as RunRecord)).toEqual(["INPUT", "REQUEST", "OUTPUT"]);
    expect(result.maskedTexts).toEqual(["XXXXXXXXXXXX", "x"]);
    expect(result.record).toBeUndefined();
  });

  it("hands the record back as an object, and what the run masked, when asked for it", async () => {
    const result = await runner.run(task("create", { tax_id: taxId }, { returnRecord: true }));
    expect(recordOf(result)).toEqual(JSON.parse(result.recordLine));
    expect(result.maskedValues).toContain(taxId);
  });

  it("says an async run's start, with its 202 and running record", async () => {
    const starts: RunStarted[] = [];
    const result = await runner.run(task("later", {}), (started) => starts.push(started));
    // From a worker the start comes on a port of its own, which may be read after the end.
    await vi.waitFor(() => expect(starts).toHaveLength(1));
    const [start] = starts as [RunStarted];
    expect(start.runId).toBe(result.runId);
    expect(start.accepted).toEqual({
      status: 202,
      headers: {},
      payload: { run_id: result.runId, status: "started" },
    });
    expect(JSON.parse(start.startedLine)).toMatchObject({ id: result.runId, status: "running" });
    expect(kinds(recordOf(result))).toEqual(["INPUT", "DEBUG", "OUTPUT"]);
  });

  it("says an async run's start while the thread that asked is busy", async () => {
    const starts = new Set<string>();
    const ids: string[] = [];
    for (let round = 0; round < 8; round++) {
      const running = runner.run(task("later", {}), (started) => starts.add(started.runId));
      // The caller is busy (serve under load) while the run ends: its end and its start wait together.
      setImmediate(() => {
        const until = performance.now() + 30;
        while (performance.now() < until);
      });
      ids.push((await running).runId);
    }
    await vi.waitFor(() => expect(starts.size).toBe(8));
    expect([...starts]).toEqual(ids);
  });

  it("gives a callint child's record with its parent's, masked by what the parent masked", async () => {
    const result = await runner.run(task("parent", { tax_id: taxId }));
    expect(result.childRecords).toHaveLength(1);
    const child = JSON.parse(result.childRecords?.[0]?.line ?? "") as RunRecord;
    expect(child).toMatchObject({ integration: "create", trigger: "callint", parent_run: result.runId });
    expect(result.childRecords?.[0]?.line).not.toContain(taxId);
    expect(kinds(recordOf(result))).toEqual(["INPUT", "CALLINT", "OUTPUT"]);
  });

  it("records a cell's error with its file and line, and the default 500", async () => {
    const result = await runner.run(task("throws", {}));
    expect(result.status).toBe("failure");
    expect(result.output.status).toBe(500);
    const failure = recordOf(result).items.find((item) => item.kind === "FAILURE");
    expect(failure).toMatchObject({
      error: { code: "cell_error", line: 4, file: expect.stringContaining("throws.yaml") },
    });
  });

  it("ends a cell past its time limit with cell_timeout and a 504", async () => {
    const result = await runner.run(task("loops", {}));
    expect(result.output.status).toBe(504);
    expect(recordOf(result).items.find((item) => item.kind === "FAILURE")).toMatchObject({
      error: { code: "cell_timeout" },
    });
  });

  it("throws for an integration the project does not have", async () => {
    const error = await runner.run(task("nothing", {})).catch((caught: unknown) => caught);
    expect(isBassError(error) && error.code).toBe("INTEGRATION_NOT_FOUND");
  });

  it("makes the engine's record of a run it could not end: a 500, retryable, its message masked", () => {
    const result = runner.failed(
      { integration: "create", trigger: "http" },
      new Error(`the system said ${secret}`),
    );
    expect(result).toMatchObject({ status: "failure", retryable: true, output: { status: 500 } });
    const record = recordOf(result);
    expect(record).toMatchObject({ integration: "create", trigger: "http", status: "failure" });
    expect(record.items).toEqual([
      expect.objectContaining({ kind: "FAILURE", error: expect.objectContaining({ code: "worker_error" }) }),
      expect.objectContaining({ kind: "OUTPUT", data: result.output }),
    ]);
    expect(JSON.parse(result.outputJson ?? "")).toMatchObject({
      error: { code: "worker_error", run_id: record.id },
    });
    expect(result.recordLine).toContain("the system said XXXXXXXXXXXX");
    expect(result.recordLine + result.outputJson).not.toContain(secret);
  });
});
