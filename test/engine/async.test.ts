import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import type { Adapter, AdapterResponse } from "../../src/adapters/adapter.js";
import { echoAdapter } from "../../src/adapters/echo.js";
import type { RunRecord } from "../../src/engine/types.js";
import { createHistoryStore, type HistoryStore, resolveHistoryOptions } from "../../src/history/store.js";
import { createTempDir, defaultProjectFile, runCli, startDefinition } from "../_helpers.js";

/** Every record `bass run` hands to the history store, in order. */
const written = vi.hoisted((): RunRecord[] => []);

vi.mock("../../src/history/store.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/history/store.js")>();
  return {
    ...original,
    createHistoryStore: (...args: Parameters<typeof original.createHistoryStore>): HistoryStore => {
      const store = original.createHistoryStore(...args);
      return {
        ...store,
        writeLine(id, line, request) {
          written.push(JSON.parse(line) as RunRecord);
          store.writeLine(id, line, request);
        },
      };
    },
  };
});

const asyncDefinition = stringify({
  name: "payments.submit",
  run_async: true,
  service_requests: [
    {
      formula_variable: "core",
      system: "core",
      field_mappings: [
        { field: "service_path", literal: "/core/v1/transfers" },
        { field: "method", literal: "POST" },
        { field: "body.amount", value: "input.payload.amount" },
      ],
    },
  ],
  on_success_hook: "output.status = 201\noutput.payload = { transfer_id: core.response.payload.id }",
});

/** An adapter whose answers wait until the test lets them go. */
function heldAdapter() {
  let release: (response: AdapterResponse) => void = () => {};
  const answer = new Promise<AdapterResponse>((resolve) => {
    release = resolve;
  });
  const calls: unknown[] = [];
  const adapter: Adapter = {
    execute: (request) => {
      calls.push(request.payload);
      return answer;
    },
  };
  return { adapter, calls, release };
}

describe("asynchronous integrations", () => {
  it("start at once with a record of status running, and complete later", async () => {
    const held = heldAdapter();
    const run = startDefinition(
      asyncDefinition,
      { payload: { amount: "12.30" } },
      { adapters: () => held.adapter },
    );
    expect(run.started).toMatchObject({
      id: run.runId,
      integration: "payments.submit",
      status: "running",
      async: true,
      ended_at: null,
      duration_ms: null,
    });
    expect(run.started?.items.map((item) => item.kind)).toEqual(["INPUT"]);

    let settled = false;
    void run.completion.then(() => {
      settled = true;
    });
    await vi.waitFor(() => expect(held.calls).toHaveLength(1));
    expect(settled).toBe(false);

    held.release({ success: true, status: 201, payload: { id: "T-1" }, messages: [] });
    const result = await run.completion;
    expect(result.runId).toBe(run.runId);
    expect(result.status).toBe("success");
    expect(result.output).toEqual({ status: 201, headers: {}, payload: { transfer_id: "T-1" } });
    expect(result.record).toMatchObject({ id: run.runId, status: "success", async: true });
    expect(result.record.ended_at).not.toBeNull();
    expect(result.record.items.map((item) => item.kind)).toEqual(["INPUT", "REQUEST", "OUTPUT"]);
  });

  it("complete with a failure record, never a rejection, when the run fails", async () => {
    const run = startDefinition(
      asyncDefinition,
      { payload: { amount: "1.00" } },
      {
        adapters: (system) =>
          system === "core" ? { execute: async () => Promise.reject(new Error("reset")) } : echoAdapter,
      },
    );
    expect(run.started?.status).toBe("running");
    const result = await run.completion;
    expect(result.status).toBe("failure");
    expect(result.record).toMatchObject({ id: run.runId, status: "failure", async: true });
    expect(result.output.status).toBe(502);
  });

  it("have a history record with status running from the start, replaced by the final one", async () => {
    const held = heldAdapter();
    const dir = createTempDir();
    const store = createHistoryStore(resolveHistoryOptions(dir));
    const run = startDefinition(
      asyncDefinition,
      { payload: { amount: "5.00" } },
      { adapters: () => held.adapter },
    );
    if (!run.started) throw new Error("an async run has a started record");
    store.write(run.started);
    await store.flush();
    expect((await store.read(run.runId))?.status).toBe("running");
    held.release({ success: true, payload: { id: "T-3" }, messages: [] });
    store.write((await run.completion).record);
    await store.flush();
    expect(await store.list()).toEqual([expect.objectContaining({ id: run.runId, status: "success" })]);
  });

  it("answer at once with 202 { run_id, status: started }", () => {
    const held = heldAdapter();
    const run = startDefinition(
      asyncDefinition,
      { payload: { amount: "1.00" } },
      { adapters: () => held.adapter },
    );
    expect(run.accepted).toEqual({
      status: 202,
      headers: {},
      payload: { run_id: run.runId, status: "started" },
    });
  });

  it("are synchronous otherwise: no started record, no 202, not marked async", async () => {
    const run = startDefinition(stringify({ name: "a" }), { payload: {} });
    expect(run.started).toBeUndefined();
    expect(run.accepted).toBeUndefined();
    const result = await run.completion;
    expect(result.record.async).toBe(false);
    expect(result.output.status).toBe(200);
  });
});

describe("bass run of an asynchronous integration", () => {
  it("writes the running record first, then the final one, and prints the 202 answer with the final record", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/payments.submit.yaml": asyncDefinition,
      "input.json": JSON.stringify({ amount: "12.30" }),
      "mock.json": JSON.stringify({ core: { success: true, status: 201, payload: { id: "T-9" } } }),
    });
    written.length = 0;
    const result = await runCli(
      ["run", "payments.submit", "--input", "input.json", "--mock", "mock.json", "--json"],
      {
        cwd: dir,
      },
    );
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(written.map((record) => [record.id, record.status])).toEqual([
      [printed.run_id, "running"],
      [printed.run_id, "success"],
    ]);
    expect(written[0]?.items.map((item) => item.kind)).toEqual(["INPUT"]);
    expect(printed).toMatchObject({
      status: "success",
      output: { status: 202, headers: {}, payload: { run_id: printed.run_id, status: "started" } },
      history: { id: printed.run_id, status: "success", async: true },
    });
    expect(printed.history.items.at(-1)).toMatchObject({
      kind: "OUTPUT",
      data: { status: 201, payload: { transfer_id: "T-9" } },
    });
    // The running line, then the final one: bass run waits for each, which closes a segment each time.
    const history = join(dir, ".bass", "history");
    const files = readdirSync(history).sort();
    expect(files).toHaveLength(2);
    const lines = files.map((name) => readFileSync(join(history, name), "utf8").trim());
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ id: printed.run_id, status: "running" }),
      printed.history,
    ]);
  });

  it("writes only the final record of a synchronous integration", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/a.yaml": stringify({ name: "a" }),
      "input.json": "{}",
    });
    written.length = 0;
    const result = await runCli(["run", "a", "--input", "input.json"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(written.map((record) => record.status)).toEqual(["success"]);
  });
});
