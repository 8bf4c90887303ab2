import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { createRunId } from "../../src/engine/run-id.js";
import type { RunRecord } from "../../src/engine/types.js";
import { readHistoryFile } from "../../src/history/files.js";
import {
  createHistoryStore,
  type HistoryStoreOptions,
  resolveHistoryOptions,
} from "../../src/history/store.js";
import { createTempDir } from "../_helpers.js";

// The store's file calls as a test needs them, else the real ones: its writes counted, held until a test lets
// them go on, slowed down (a busy disk) or failing after part of their bytes; a history file's reading held
// after the file was read, until a test lets it end.
const writes = vi.hoisted(() => ({
  count: 0,
  delayMs: 0,
  fail: 0,
  hold: undefined as Promise<void> | undefined,
}));
const reads = vi.hoisted(() => ({ held: 0, hold: undefined as Promise<void> | undefined }));
vi.mock("../../src/fs-calls.js", async (original) => {
  const real = await original<typeof import("../../src/fs-calls.js")>();
  return {
    ...real,
    async writeData(fd: number, bytes: Uint8Array) {
      writes.count++;
      await writes.hold;
      if (writes.fail > 0) {
        writes.fail--;
        await real.writeData(fd, bytes.subarray(0, bytes.length >> 1));
        throw new Error("EIO: i/o error, write");
      }
      if (writes.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, writes.delayMs));
      return real.writeData(fd, bytes);
    },
  };
});
vi.mock("../../src/history/files.js", async (original) => {
  const real = await original<typeof import("../../src/history/files.js")>();
  return {
    ...real,
    async readHistoryFile(...args: Parameters<typeof real.readHistoryFile>) {
      const records = await real.readHistoryFile(...args);
      if (reads.hold) {
        reads.held++;
        await reads.hold;
      }
      return records;
    },
  };
});

beforeEach(() => {
  Object.assign(writes, { count: 0, delayMs: 0, fail: 0, hold: undefined });
  Object.assign(reads, { held: 0, hold: undefined });
});

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const start = Date.parse("2026-01-02T03:04:05.000Z");
let tick = 0;

/** A finished run with one item of each kind that carries a payload; each call is a newer run. */
function runRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  const at = new Date(start).toISOString();
  return {
    id: createRunId(start + tick++ * 1000),
    integration: "customers.create",
    status: "success",
    trigger: "cli",
    started_at: at,
    ended_at: at,
    duration_ms: 12,
    labels: [],
    async: false,
    items: [
      {
        seq: 1,
        kind: "INPUT",
        at,
        data: {
          method: "POST",
          fullpath: "/customers",
          path: {},
          params: {},
          headers: {},
          payload: { n: 1 },
        },
      },
      {
        seq: 2,
        kind: "REQUEST",
        at,
        label: "core",
        sridx: null,
        duration_ms: 4,
        request: { service_name: "n/a", payload: { name: "Ann" } },
        response: { success: true, status: 201, payload: { personId: "P1" }, messages: [] },
      },
      { seq: 3, kind: "DEBUG", at, label: "seen", data: { kept: true } },
      { seq: 4, kind: "OUTPUT", at, data: { status: 201, headers: {}, payload: { id: "P1" } } },
    ],
    ...overrides,
  };
}

function createStore(options: Partial<HistoryStoreOptions> = {}) {
  const dir = join(createTempDir(), "history");
  return { dir, store: createHistoryStore({ dir, maxRuns: 1000, storePayloads: true, ...options }) };
}

describe("history store", () => {
  it("writes the runs of one turn as JSON lines of one segment, sealed with its line count by flush", async () => {
    const { dir, store } = createStore();
    const records = [runRecord(), runRecord(), runRecord()];
    for (const record of records) store.write(record);
    expect(existsSync(dir)).toBe(false);
    await store.flush();
    const [name, ...others] = readdirSync(dir);
    expect(others).toEqual([]);
    expect(name).toMatch(/^[0-7][0-9A-Z]{25}-3\.jsonl$/);
    const lines = readFileSync(join(dir, name ?? ""), "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((line) => JSON.parse(line))).toEqual(records);
    expect(await store.read(records[1]?.id ?? "")).toEqual(records[1]);
  });

  it.each([
    // JSON.stringify escapes a lone surrogate, so it is read back as it was.
    [
      "any text",
      ["Zoë Ångström", "山田太郎", "💶 1 000,00", "\ud800 alone", "tab\tnul\u0000", "a".repeat(70_000)],
    ],
    // Every character takes the 3 bytes a batch is given room for.
    ["text of 3-byte characters only", ["山田".repeat(150_000), "€".repeat(100)]],
    // Over a million characters the batch is measured instead of given room for 3 bytes each.
    ["a batch of over a million characters", ["é", "€", "x"].map((char) => char.repeat(400_000))],
    ["a batch of 3-byte characters just over a million", ["田".repeat(2 ** 20 - 500)]],
  ])("writes %s as UTF-8, whole", async (_, labels) => {
    const { dir, store } = createStore();
    const records = labels.map((label) => runRecord({ labels: [label] }));
    for (const record of records) store.write(record);
    await store.flush();
    const [name] = readdirSync(dir);
    const lines = readFileSync(join(dir, name ?? ""), "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((line) => JSON.parse(line))).toEqual(records);
  });

  it("writes batch after batch whole, each only its own bytes, long or short, ASCII or not", async () => {
    const { dir, store } = createStore();
    const batches = [
      ["a".repeat(50_000), "b"],
      ["c"],
      ["山田".repeat(20_000)],
      ["d"],
      ["é".repeat(400_000)],
      ["e"],
      // Over a million characters: measured instead of given room for 3 bytes each.
      ["f".repeat(1_300_000)],
      ["g"],
      ["é".repeat(2_200_000)],
      ["h"],
    ];
    const written: RunRecord[] = [];
    for (const labels of batches) {
      const records = labels.map((label) => runRecord({ labels: [label] }));
      for (const record of records) store.write(record);
      await store.flush();
      written.push(...records);
    }
    const text = readdirSync(dir)
      .sort()
      .map((name) => readFileSync(join(dir, name), "utf8"))
      .join("");
    expect(text).toBe(written.map((record) => `${JSON.stringify(record)}\n`).join(""));
  });

  it("writes a record before a process that never flushes ends of itself", () => {
    const dir = join(createTempDir(), "history");
    const record = runRecord();
    // The built store (npm test builds first), in a process of its own that just ends.
    const store = pathToFileURL(join(import.meta.dirname, "../../dist/history/store.js")).href;
    const script = `const { createHistoryStore } = await import(${JSON.stringify(store)});
      createHistoryStore({ dir: ${JSON.stringify(dir)}, maxRuns: 10, storePayloads: true }).write(${JSON.stringify(record)});`;
    execFileSync(process.execPath, ["--input-type=module", "-e", script]);
    const [name] = readdirSync(dir);
    expect(readFileSync(join(dir, name ?? ""), "utf8")).toBe(`${JSON.stringify(record)}\n`);
  });

  it("writes once per 10 ms at most while runs keep ending, even when a write takes longer than the runs' pace", async () => {
    const { dir, store } = createStore();
    writes.delayMs = 5;
    const began = performance.now();
    let written = 0;
    while (performance.now() - began < 100) {
      store.write(runRecord());
      written++;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const elapsed = performance.now() - began;
    // Each write takes 5 ms and a run ends every 1 ms or so: writing what arrived meanwhile at once
    // would write every 5 ms; a write per 10 ms group-commit wait leaves at most one per 10 ms.
    expect(writes.count).toBeGreaterThan(0);
    expect(writes.count).toBeLessThanOrEqual(Math.floor(elapsed / 10) + 1);
    await store.flush();
    expect(await store.list()).toHaveLength(written);
    expect(readdirSync(dir)).toHaveLength(Math.ceil(written / 100));
  });

  it("writes in its flush the runs that end while the flush writes, and seals their segment", async () => {
    const { dir, store } = createStore();
    const held = gate();
    writes.hold = held.opened;
    const first = runRecord();
    const later = runRecord();
    store.write(first);
    const flushed = store.flush();
    await vi.waitFor(() => expect(writes.count).toBe(1));
    store.write(later);
    held.open();
    await flushed;
    const names = readdirSync(dir);
    expect(names).toEqual([expect.stringMatching(/-2\.jsonl$/)]);
    expect(readFileSync(join(dir, names[0] ?? ""), "utf8")).toBe(
      `${JSON.stringify(first)}\n${JSON.stringify(later)}\n`,
    );
  });

  it("lists a run whose record a drain wrote while the listing was reading the files", async () => {
    const { store } = createStore();
    const earlier = runRecord();
    store.write(earlier);
    await store.flush();
    // The next write waits until the listing has read every file, then ends before the listing does.
    const write = gate();
    writes.hold = write.opened;
    const record = runRecord();
    store.write(record);
    await vi.waitFor(() => expect(writes.count).toBe(2));
    const read = gate();
    reads.hold = read.opened;
    const listing = store.list();
    await vi.waitFor(() => expect(reads.held).toBe(2));
    write.open();
    await store.flush();
    read.open();
    expect((await listing).map((found) => found.id)).toEqual([record.id, earlier.id]);
  });

  it("starts a new segment every max_runs / 10 runs, at most 100", async () => {
    const { dir, store } = createStore({ maxRuns: 1000 });
    for (let i = 0; i < 250; i++) store.write(runRecord());
    await store.flush();
    const lineCounts = readdirSync(dir)
      .sort()
      .map((name) => Number(/-(\d+)\.jsonl$/.exec(name)?.[1]));
    expect(lineCounts).toEqual([100, 100, 50]);
    const small = createStore({ maxRuns: 25 });
    for (let i = 0; i < 7; i++) small.store.write(runRecord());
    await small.store.flush();
    expect(
      readdirSync(small.dir)
        .map((name) => /-(\d+)\.jsonl$/.exec(name)?.[1])
        .sort(),
    ).toEqual(["1", "3", "3"]);
  });

  it("reads a queued record before it is on disk", async () => {
    const { store } = createStore();
    const record = runRecord();
    store.write(record);
    expect(await store.read(record.id)).toEqual(record);
    expect(await store.list()).toEqual([record]);
    await store.flush();
  });

  it.each([
    ["queued together", false],
    ["the first already being written", true],
  ])("keeps the later of two writes of one run (%s)", async (_, waitBetween) => {
    const { dir, store } = createStore();
    const running = runRecord({ status: "running", ended_at: null, duration_ms: null, async: true });
    store.write(running);
    if (waitBetween) await new Promise((resolve) => setImmediate(resolve));
    const done = { ...running, status: "success" as const, ended_at: running.started_at, duration_ms: 30 };
    store.write(done);
    await store.flush();
    expect(await store.read(running.id)).toEqual(done);
    expect(await store.list()).toEqual([done]);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it("prunes the oldest runs beyond maxRuns, counting the runs already on disk", async () => {
    const { dir, store: first } = createStore({ maxRuns: 3 });
    const records = Array.from({ length: 6 }, () => runRecord());
    for (const record of records.slice(0, 2)) first.write(record);
    await first.flush();
    const second = createHistoryStore({ dir, maxRuns: 3, storePayloads: true });
    for (const record of records.slice(2)) second.write(record);
    await second.flush();
    // Three runs or fewer make segments of one run each, so exactly the newest three are kept.
    expect(await second.list()).toEqual(records.slice(3).reverse());
    expect(readdirSync(dir)).toHaveLength(3);
  });

  it("prunes whole segments, keeping at least maxRuns runs and at most a segment more", async () => {
    const { dir, store } = createStore({ maxRuns: 20 });
    const records = Array.from({ length: 47 }, () => runRecord());
    for (const [index, record] of records.entries()) {
      store.write(record);
      if (index % 5 === 4) await store.flush();
    }
    await store.flush();
    const kept = (await store.list()).map((record) => record.id);
    expect(kept.length).toBeGreaterThanOrEqual(20);
    expect(kept.length).toBeLessThan(22);
    expect(kept).toEqual(
      records
        .map((record) => record.id)
        .slice(-kept.length)
        .reverse(),
    );
    expect(readdirSync(dir).every((name) => name.endsWith(".jsonl"))).toBe(true);
  });

  it("prunes a segment left open only once it is abandoned, since another process may still be writing it", async () => {
    const { dir, store } = createStore({ maxRuns: 2 });
    mkdirSync(dir);
    const line = (record: RunRecord) => `${JSON.stringify(record)}\n`;
    // Opened in 2016, and just now.
    const abandoned = "01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl";
    const live = `${createRunId()}.jsonl`;
    writeFileSync(join(dir, abandoned), line(runRecord()) + line(runRecord()));
    writeFileSync(join(dir, live), line(runRecord()) + line(runRecord()));
    for (let i = 0; i < 3; i++) store.write(runRecord());
    await store.flush();
    expect(existsSync(join(dir, abandoned))).toBe(false);
    expect(existsSync(join(dir, live))).toBe(true);
    expect(await store.list()).toHaveLength(5);
  });

  it("stores INPUT, OUTPUT and REQUEST payloads as *REDACTED* without touching the caller's record", async () => {
    const { dir, store } = createStore({ storePayloads: false });
    const record = runRecord();
    const before = structuredClone(record);
    store.write(record);
    await store.flush();
    expect(record).toEqual(before);
    const [name] = readdirSync(dir);
    const stored = JSON.parse(readFileSync(join(dir, name ?? ""), "utf8"));
    expect(stored.items).toEqual([
      expect.objectContaining({
        kind: "INPUT",
        data: expect.objectContaining({ method: "POST", payload: "*REDACTED*" }),
      }),
      expect.objectContaining({
        request: { service_name: "n/a", payload: "*REDACTED*" },
        response: { success: true, status: 201, payload: "*REDACTED*", messages: [] },
      }),
      expect.objectContaining({ kind: "DEBUG", data: { kept: true } }),
      expect.objectContaining({ kind: "OUTPUT", data: { status: 201, headers: {}, payload: "*REDACTED*" } }),
    ]);
    expect(await store.read(record.id)).toEqual(stored);
  });

  it("skips a line cut short, damaged lines, and files that are not segments", async () => {
    const { dir, store } = createStore();
    const good = runRecord();
    store.write(good);
    await store.flush();
    const [segment] = readdirSync(dir);
    const older = runRecord();
    const cut = runRecord();
    // A segment another writer was appending to when it was killed: a whole line, a damaged one, a cut one.
    writeFileSync(
      join(dir, `${createRunId()}.jsonl`),
      `${JSON.stringify(older)}\n{"id": "\n${JSON.stringify({ id: "someone else" })}\n${JSON.stringify(cut).slice(0, 40)}`,
    );
    // A record alone in a file named by its run id is not a segment.
    const single = runRecord();
    writeFileSync(join(dir, `${single.id}.json`), JSON.stringify(single));
    writeFileSync(join(dir, `${segment}.abc.tmp`), "{");
    writeFileSync(join(dir, "notes.jsonl"), `${JSON.stringify(runRecord())}\n`);
    expect(await store.list()).toEqual([older, good].sort((a, b) => (a.id < b.id ? 1 : -1)));
    expect(await store.read(cut.id)).toBeUndefined();
    expect(await store.read(single.id)).toBeUndefined();
  });

  it("filters by integration, status and label, newest first, up to the limit", async () => {
    const { store } = createStore();
    const a = runRecord({ labels: ["vip"] });
    const b = runRecord({ integration: "payments.create", status: "failure" });
    const c = runRecord({ labels: ["vip", "eu"] });
    for (const record of [a, b, c]) store.write(record);
    await store.flush();
    const ids = async (filter: Parameters<typeof store.list>[0]) =>
      (await store.list(filter)).map((record) => record.id);
    expect(await ids({})).toEqual([c.id, b.id, a.id]);
    expect(await ids({ integration: "customers.create" })).toEqual([c.id, a.id]);
    expect(await ids({ status: "failure" })).toEqual([b.id]);
    expect(await ids({ label: "vip" })).toEqual([c.id, a.id]);
    expect(await ids({ label: "eu", status: "success" })).toEqual([c.id]);
    expect(await ids({ limit: 2 })).toEqual([c.id, b.id]);
    expect(await ids({ integration: "nothing" })).toEqual([]);
  });

  it("never reads a path built from something that is not a run id", async () => {
    const { dir, store } = createStore();
    store.write(runRecord());
    await store.flush();
    // A record file just outside the history folder, reachable only through `..`.
    writeFileSync(join(dir, "..", "x.json"), JSON.stringify(runRecord({ id: "../x" })));
    expect(await store.read("../x")).toBeUndefined();
    expect(await store.read("../../../../etc/passwd")).toBeUndefined();
    expect(() => store.write(runRecord({ id: "../x" }))).toThrow(/not a run id/);
  });

  it("lists nothing when the folder does not exist yet", async () => {
    const { store } = createStore();
    expect(await store.list()).toEqual([]);
  });

  it("reports a history it cannot write from flush, naming the run", async () => {
    const file = join(createTempDir({ "taken.txt": "a file, not a folder" }), "taken.txt");
    const store = createHistoryStore({ dir: join(file, "history"), maxRuns: 10, storePayloads: true });
    const record = runRecord();
    store.write(record);
    await expect(store.flush()).rejects.toMatchObject({
      code: "HISTORY_UNWRITABLE",
      message: expect.stringContaining(record.id),
    });
    await expect(store.flush()).resolves.toBeUndefined();
  });

  it("loses only the batches whose write failed, reports them from flush, and writes on in a new segment", async () => {
    // Segments of 2 lines: five records queued together are written as batches of 2, 2 and 1. The first
    // two writes fail after half their bytes: whatever follows must not be appended to half a line.
    const { dir, store } = createStore({ maxRuns: 20 });
    const records = [runRecord(), runRecord(), runRecord(), runRecord(), runRecord()];
    writes.fail = 2;
    for (const record of records) store.write(record);
    await expect(store.flush()).rejects.toMatchObject({
      code: "HISTORY_UNWRITABLE",
      message: expect.stringMatching(/cannot keep 4 runs.*EIO/),
    });
    expect(await store.read(records[0]?.id ?? "")).toBeUndefined();
    const later = runRecord();
    store.write(later);
    await store.flush();
    expect((await store.list()).map((record) => record.id)).toEqual([later.id, records[4]?.id]);
    const lines = readdirSync(dir).flatMap((name) => readFileSync(join(dir, name), "utf8").split("\n"));
    expect(lines).toContain(JSON.stringify(records[4]));
    expect(lines).toContain(JSON.stringify(later));
  });

  it("masks the secrets it is given in its errors: a history folder's path may come from the environment", async () => {
    const secret = "vault-7f3a9c";
    const file = join(createTempDir({ [secret]: "a file, not a folder" }), secret);
    const store = createHistoryStore({
      dir: join(file, "history"),
      maxRuns: 10,
      storePayloads: true,
      secrets: [secret],
    });
    store.write(runRecord());
    const writing = await store.flush().catch((error: Error) => error);
    const reading = await store.list().catch((error: Error) => error);
    for (const error of [writing, reading]) {
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain("XXXXXXXXXXXX");
      expect((error as Error).message).not.toContain(secret);
    }
    expect(writing).toMatchObject({ code: "HISTORY_UNWRITABLE" });
    expect(reading).toMatchObject({ code: "FILE_UNREADABLE" });
  });

  it("takes the history settings of the project file, with their defaults", () => {
    expect(resolveHistoryOptions("/p")).toEqual({
      dir: "/p/.bass/history",
      maxRuns: 1000,
      storePayloads: true,
      maxItemBytes: 262144,
      filesDir: "/p/.bass/files",
      secrets: [],
    });
    expect(
      resolveHistoryOptions("/p", { dir: "runs", max_runs: 5, store_payloads: false, max_item_bytes: 4096 }, [
        "s3cret",
      ]),
    ).toEqual({
      dir: "/p/runs",
      maxRuns: 5,
      storePayloads: false,
      maxItemBytes: 4096,
      filesDir: "/p/.bass/files",
      secrets: ["s3cret"],
    });
    // A secret in the folder's path: resolving rewrites it, so the folder and the secret as a path are secrets too.
    expect(resolveHistoryOptions("/p", { dir: "./vault//runs/" }, ["./vault/"]).secrets).toEqual([
      "./vault/",
      "/p/vault/runs",
      "/p/vault",
    ]);
  });
});

describe("history files", () => {
  it("reads an open segment that was sealed since the folder was listed under its new name", async () => {
    const dir = createTempDir();
    const id = createRunId();
    const records = [runRecord(), runRecord()];
    writeFileSync(
      join(dir, `${id}-2.jsonl`),
      records.map((record) => `${JSON.stringify(record)}\n`).join(""),
    );
    expect(await readHistoryFile(dir, { name: `${id}.jsonl`, id, lines: undefined })).toEqual(records);
    const gone = createRunId();
    expect(await readHistoryFile(dir, { name: `${gone}.jsonl`, id: gone, lines: undefined })).toEqual([]);
  });
});

describe("looking up one run", () => {
  it("reads only files opened at most two minutes before the run's id was made", async () => {
    const { dir, store } = createStore();
    mkdirSync(dir);
    const recent = runRecord({ id: createRunId() });
    // Listed by a file opened in 2016: a listing shows it, a look-up by id knows it cannot be there.
    writeFileSync(join(dir, "01ARZ3NDEKTSV4RRFFQ69G5FAV-1.jsonl"), `${JSON.stringify(recent)}\n`);
    expect(await store.list()).toEqual([recent]);
    expect(await store.read(recent.id)).toBeUndefined();
    writeFileSync(join(dir, `${createRunId()}-1.jsonl`), `${JSON.stringify(recent)}\n`);
    expect(await store.read(recent.id)).toEqual(recent);
  });
});
