import { describe, expect, it } from "vitest";
import { createRunId } from "../../src/engine/run-id.js";
import type { RunRecord } from "../../src/engine/types.js";
import { createHistoryStore, resolveHistoryOptions } from "../../src/history/store.js";
import { createTempDir, defaultProjectFile, runCli } from "../_helpers.js";

const at = "2026-01-02T03:04:05.000Z";

function runRecord(overrides: Partial<RunRecord>): RunRecord {
  return {
    id: createRunId(),
    integration: "customers.create",
    status: "success",
    trigger: "cli",
    started_at: at,
    ended_at: at,
    duration_ms: 7,
    labels: [],
    async: false,
    items: [
      { seq: 1, kind: "DEBUG", at, label: "seen", data: { kept: true } },
      { seq: 2, kind: "OUTPUT", at, data: { status: 201, headers: {}, payload: { id: "P1" } } },
    ],
    ...overrides,
  };
}

/** A project whose history holds three runs, written by the store; they come back newest first. */
async function projectWithRuns(projectFile = defaultProjectFile) {
  const dir = createTempDir({ "bass.config.yaml": projectFile });
  const records = [
    runRecord({ labels: ["vip"] }),
    runRecord({ integration: "payments.create", status: "failure", trigger: "test" }),
    runRecord({ status: "running", ended_at: null, duration_ms: null, async: true }),
  ];
  const store = createHistoryStore(resolveHistoryOptions(dir, { dir: /dir: (\S+)/.exec(projectFile)?.[1] }));
  for (const record of records) store.write(record);
  await store.flush();
  return { dir, records: records.toReversed() };
}

describe("bass history", () => {
  it("lists the runs newest first, one row each", async () => {
    const { dir, records } = await projectWithRuns();
    const result = await runCli(["history"], { cwd: dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const rows = result.stdout.trimEnd().split("\n");
    expect(rows[0]).toMatch(/^ID +INTEGRATION +STATUS +STARTED +DURATION +TRIGGER +LABELS$/);
    expect(rows.slice(1).map((row) => row.split(/ +/).slice(0, 3))).toEqual(
      records.map((record) => [record.id, record.integration, record.status]),
    );
    // Who started each run: bass run, a test, serve.
    expect(rows.slice(1).map((row) => row.split(/ {2,}/)[5])).toEqual(
      records.map((record) => record.trigger),
    );
  });

  it.each([
    [["--integration", "payments.create"], [1]],
    [["--status", "running"], [0]],
    [["--label", "vip"], [2]],
    [["--trigger", "test"], [1]],
    [["--trigger", "cli", "--status", "running"], [0]],
    [
      ["--limit", "2"],
      [0, 1],
    ],
    [["--status", "success", "--integration", "payments.create"], []],
  ])("filters with %j", async (options, expected) => {
    const { dir, records } = await projectWithRuns();
    const result = await runCli(["history", "--json", ...options], { cwd: dir });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expected.map((index) => records[index]));
  });

  it("says so when there are no runs", async () => {
    const dir = createTempDir({ "bass.config.yaml": defaultProjectFile });
    expect(await runCli(["history"], { cwd: dir })).toEqual({ code: 0, stdout: "(no runs)\n", stderr: "" });
  });

  it("reads the history folder the project file names, from another folder with --project", async () => {
    const { dir, records } = await projectWithRuns(`${defaultProjectFile}history:\n  dir: runs\n`);
    const result = await runCli(["history", "--json", "--project", dir], { cwd: createTempDir() });
    expect(JSON.parse(result.stdout)).toEqual(records);
  });

  it.each([[["--status", "done"]], [["--limit", "0"]], [["--limit", "many"]]])(
    "exits 2 on %j",
    async (options) => {
      const { dir } = await projectWithRuns();
      const result = await runCli(["history", ...options], { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
    },
  );

  it("exits 2 on a project file with errors, naming its line", async () => {
    const dir = createTempDir({ "bass.config.yaml": "history:\n  max_runs: none\n" });
    const result = await runCli(["history"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^bass: bass\.config\.yaml:2:\d+: .*bass validate/);
  });
});

describe("bass history show", () => {
  it("draws one run as a tree of its items", async () => {
    const { dir, records } = await projectWithRuns();
    const record = records[2] as RunRecord;
    const result = await runCli(["history", "show", record.id], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `${record.id} customers.create success 7 ms cli [vip]\n` +
        `├─ 1 DEBUG  seen {"kept":true}\n` +
        `└─ 2 OUTPUT 201 {"id":"P1"}\n`,
    );
  });

  it("prints the record as JSON with --json", async () => {
    const { dir, records } = await projectWithRuns();
    const record = records[0] as RunRecord;
    const result = await runCli(["history", "show", record.id, "--json", "--no-color"], { cwd: dir });
    expect(JSON.parse(result.stdout)).toEqual(record);
  });

  it.each([
    ["latest", 0],
    ["latest~1", 1],
    ["latest~2", 2],
  ])("finds %s, counted back from the newest run", async (ref, back) => {
    const { dir, records } = await projectWithRuns();
    const result = await runCli(["history", "show", ref, "--json"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).id).toBe((records[back] as RunRecord).id);
  });

  it("says how many runs there are when latest~N goes past the oldest", async () => {
    const { dir } = await projectWithRuns();
    const result = await runCli(["history", "show", "latest~3"], { cwd: dir });
    expect([result.code, result.stderr]).toEqual([
      2,
      "bass: there is no latest~3: the history holds 3 runs; bass history lists them\n",
    ]);
  });

  it.each([
    [
      "01ARZ3NDEKTSV4RRFFQ69G5FAV",
      /no run 01ARZ3NDEKTSV4RRFFQ69G5FAV in the history; bass history lists the runs/,
    ],
    ["../bass.config", /"\.\.\/bass\.config" is not a run id .*bass history lists the runs/],
  ])("exits 2 on the id %s, naming it", async (id, message) => {
    const { dir } = await projectWithRuns();
    const result = await runCli(["history", "show", id], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
  });
});
