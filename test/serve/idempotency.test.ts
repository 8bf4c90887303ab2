import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createIdempotencyStore,
  type IdempotencyDecision,
  type IdempotencyStoreOptions,
  isIdempotencyKey,
  requestFingerprint,
  type StoredResponse,
} from "../../src/serve/idempotency.js";
import { createSealer } from "../../src/state/seal.js";
import { createTempDir } from "../_helpers.js";

const body = (text: string) => new TextEncoder().encode(text);
const postA = requestFingerprint("POST", "/transfers", body('{"amount":"10.00"}'));
const response: StoredResponse = {
  status: 201,
  headers: { "content-type": "application/json; charset=utf-8", location: "/transfers/7" },
  body: Buffer.from('{"id":7}').toString("base64"),
};
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const sealer = createSealer(Buffer.alloc(32, 7));
/** An entry's file as the store writes it: the fingerprint and the response sealed under the key's hash. */
const entryText = (key: string, sealed: unknown, by = sealer, hash = sha256(key)) =>
  JSON.stringify({
    key: hash,
    stored_at: new Date().toISOString(),
    sealed: by.seal(Buffer.from(typeof sealed === "string" ? sealed : JSON.stringify(sealed)), sha256(key)),
  });
const fileOf = (dir: string, key: string) => join(dir, `${sha256(key)}.json`);

function createStore(options: Partial<IdempotencyStoreOptions> = {}) {
  const dir = options.dir ?? createTempDir();
  return { dir, store: createIdempotencyStore({ sealer, dir, ttlSeconds: 60, ...options }) };
}

function expectRun(decision: IdempotencyDecision) {
  if (decision.kind !== "run") throw new Error(`expected run, got ${decision.kind}`);
  return decision;
}

describe("isIdempotencyKey", () => {
  it.each(["a", "x".repeat(64), "3f1c-9a_b.~!", "order:42/retry"])("accepts %j", (key) => {
    expect(isIdempotencyKey(key)).toBe(true);
  });

  it.each(["", "x".repeat(65), "a b", "a\tb", "line\n", "\x7f", "clé"])("refuses %j", (key) => {
    expect(isIdempotencyKey(key)).toBe(false);
  });
});

describe("requestFingerprint", () => {
  it("is the sha256 hex of the request, the same for the same request", () => {
    expect(postA).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint("POST", "/transfers", body('{"amount":"10.00"}'))).toBe(postA);
  });

  it.each([
    ["another method", "PUT", "/transfers", '{"amount":"10.00"}'],
    ["another path", "POST", "/transfers/2", '{"amount":"10.00"}'],
    ["another body", "POST", "/transfers", '{"amount":"10.01"}'],
    ["a method that runs into the path", "POS", "T/transfers", '{"amount":"10.00"}'],
    ["a path that runs into the body", "POST", "/transfers{", '"amount":"10.00"}'],
  ])("differs for %s", (_, method, path, text) => {
    expect(requestFingerprint(method, path, body(text))).not.toBe(postA);
  });
});

describe("the idempotency store", () => {
  it("runs the first request and replays its stored response to a repeat", async () => {
    const { store } = createStore();
    const first = expectRun(await store.begin("k1", postA));
    await first.complete(response);
    expect(await store.begin("k1", postA)).toEqual({ kind: "replay", response });
    expect(expectRun(await store.begin("k2", postA)).kind).toBe("run");
  });

  it("keeps its own copy: changing the completed response or a replay does not change the next replay", async () => {
    const { store } = createStore();
    const completed = structuredClone(response);
    await expectRun(await store.begin("k", postA)).complete(completed);
    completed.headers.location = "/elsewhere";
    const replay = await store.begin("k", postA);
    if (replay.kind !== "replay") throw new Error(replay.kind);
    replay.response.headers["idempotent-replayed"] = "true";
    expect(await store.begin("k", postA)).toEqual({ kind: "replay", response });
  });

  it("answers in-progress to a repeat while the first runs, and mismatch to another request", async () => {
    const { store } = createStore();
    expectRun(await store.begin("k", postA));
    expect(await store.begin("k", postA)).toEqual({ kind: "in-progress" });
    const other = requestFingerprint("POST", "/transfers", body('{"amount":"99.00"}'));
    expect(await store.begin("k", other)).toEqual({ kind: "mismatch" });
  });

  it.each([
    ["another body", requestFingerprint("POST", "/transfers", body('{"amount":"99.00"}'))],
    ["another route", requestFingerprint("POST", "/payments", body('{"amount":"10.00"}'))],
    ["another method", requestFingerprint("PUT", "/transfers", body('{"amount":"10.00"}'))],
  ])("answers mismatch to the same key with %s after the first was answered", async (_, fingerprint) => {
    const { store } = createStore();
    await expectRun(await store.begin("k", postA)).complete(response);
    expect(await store.begin("k", fingerprint)).toEqual({ kind: "mismatch" });
    expect(await store.begin("k", postA)).toEqual({ kind: "replay", response });
  });

  it("gives exactly one of many concurrent begins the run", async () => {
    const { store } = createStore();
    const decisions = await Promise.all(Array.from({ length: 20 }, () => store.begin("k", postA)));
    expect(decisions.filter((decision) => decision.kind === "run")).toHaveLength(1);
    expect(decisions.filter((decision) => decision.kind === "in-progress")).toHaveLength(19);
  });

  it("replays to every concurrent begin once the response is stored, also when each reads the file", async () => {
    const { dir, store } = createStore();
    await expectRun(await store.begin("k", postA)).complete(response);
    const restarted = createIdempotencyStore({ sealer, dir, ttlSeconds: 60 });
    const decisions = await Promise.all(Array.from({ length: 20 }, () => restarted.begin("k", postA)));
    expect(decisions).toEqual(Array.from({ length: 20 }, () => ({ kind: "replay", response })));
  });

  it("replays to a begin that comes while complete is writing", async () => {
    const { store } = createStore();
    const run = expectRun(await store.begin("k", postA));
    const [, next] = await Promise.all([run.complete(response), store.begin("k", postA)]);
    expect(next).toEqual({ kind: "replay", response });
  });

  it("frees an abandoned key: the next request runs", async () => {
    const { store } = createStore();
    expectRun(await store.begin("k", postA)).abandon();
    const again = expectRun(await store.begin("k", postA));
    await again.complete(response);
    expect(await store.begin("k", postA)).toEqual({ kind: "replay", response });
  });

  it("ignores abandon after complete, and refuses complete after abandon", async () => {
    const { dir, store } = createStore();
    const completed = expectRun(await store.begin("a", postA));
    await completed.complete(response);
    completed.abandon();
    expect(await store.begin("a", postA)).toEqual({ kind: "replay", response });

    const abandoned = expectRun(await store.begin("b", postA));
    abandoned.abandon();
    await expect(abandoned.complete(response)).rejects.toThrow(TypeError);
    expect(existsSync(fileOf(dir, "b"))).toBe(false);
  });

  it("lets a second abandon not free the key another request holds by then", async () => {
    const { store } = createStore();
    const first = expectRun(await store.begin("k", postA));
    first.abandon();
    expectRun(await store.begin("k", postA));
    first.abandon();
    expect(await store.begin("k", postA)).toEqual({ kind: "in-progress" });
  });

  it("has the response on disk when complete resolves", async () => {
    let now = Date.parse("2025-03-01T10:00:00.000Z");
    const { dir, store } = createStore({ clock: () => now });
    const run = expectRun(await store.begin("POST /transfers k", postA));
    now += 1;
    await run.complete(response);
    const entry = JSON.parse(readFileSync(fileOf(dir, "POST /transfers k"), "utf8"));
    expect(entry).toEqual({
      key: sha256("POST /transfers k"),
      stored_at: "2025-03-01T10:00:00.001Z",
      sealed: expect.stringMatching(/^v1\./),
    });
    const opened = sealer.open(entry.sealed, sha256("POST /transfers k"))?.toString("utf8");
    expect(JSON.parse(opened ?? "null")).toEqual({ fingerprint: postA, response });
  });

  it("has every completed response on disk when flush resolves", async () => {
    const { dir, store } = createStore();
    const runs = await Promise.all(["a", "b", "c"].map((key) => store.begin(key, postA)));
    for (const run of runs) void expectRun(run).complete(response);
    await store.flush();
    for (const key of ["a", "b", "c"]) expect(existsSync(fileOf(dir, key))).toBe(true);
  });

  it("remembers answered keys after a restart (a new store on the same folder)", async () => {
    const { dir, store } = createStore();
    await expectRun(await store.begin("k", postA)).complete(response);
    const restarted = createIdempotencyStore({ sealer, dir, ttlSeconds: 60 });
    expect(await restarted.begin("k", postA)).toEqual({ kind: "replay", response });
    expect(await restarted.begin("k", requestFingerprint("POST", "/other", new Uint8Array()))).toEqual({
      kind: "mismatch",
    });
  });

  it("runs a key again after a restart when its first request was never answered", async () => {
    const { dir, store } = createStore();
    expectRun(await store.begin("k", postA));
    const restarted = createIdempotencyStore({ sealer, dir, ttlSeconds: 60 });
    expect((await restarted.begin("k", postA)).kind).toBe("run");
  });

  it("treats an entry as absent once the TTL has passed, and deletes its file", async () => {
    let now = 1_000_000;
    const { dir, store } = createStore({ ttlSeconds: 10, clock: () => now });
    await expectRun(await store.begin("k", postA)).complete(response);
    now += 9_999;
    expect((await store.begin("k", postA)).kind).toBe("replay");
    const restarted = createIdempotencyStore({ sealer, dir, ttlSeconds: 10, clock: () => now });
    expect((await restarted.begin("k", postA)).kind).toBe("replay");
    now += 1;
    expect((await store.begin("k", postA)).kind).toBe("run");
    expect(existsSync(fileOf(dir, "k"))).toBe(false);
    expect((await restarted.begin("k", postA)).kind).toBe("run");
  });

  it("takes the time of begin from its now argument", async () => {
    const { store } = createStore({ ttlSeconds: 10, clock: () => 0 });
    await expectRun(await store.begin("k", postA)).complete(response);
    expect((await store.begin("k", postA, 9_999)).kind).toBe("replay");
    expect((await store.begin("k", postA, 10_000)).kind).toBe("run");
  });

  it("never uses the key in a file name, nor writes outside its folder", async () => {
    const parent = createTempDir();
    const dir = join(parent, "idempotency");
    const { store } = createStore({ dir });
    const keys = ["../../escape", "a/b\\c", "..", "con", "POST /transfers/{id} k"];
    for (const key of keys) await expectRun(await store.begin(key, postA)).complete(response);
    expect(readdirSync(parent)).toEqual(["idempotency"]);
    const names = readdirSync(dir).sort();
    expect(names).toEqual(keys.map((key) => `${sha256(key)}.json`).sort());
    for (const name of names) expect(readFileSync(join(dir, name), "utf8")).not.toContain("escape");
  });

  it.each([
    ["an empty file", ""],
    ["a partial file", '{"key":"'],
    ["a JSON null", "null"],
    ["an entry of another key", entryText("k", { fingerprint: postA, response }, sealer, sha256("other"))],
    [
      "an entry without a time",
      JSON.stringify({ key: sha256("k"), sealed: sealer.seal(Buffer.from("{}"), sha256("k")) }),
    ],
    [
      "an entry in clear",
      JSON.stringify({ key: sha256("k"), stored_at: new Date().toISOString(), response }),
    ],
    ["a sealed text that is not JSON", entryText("k", "not JSON {")],
    [
      "a response without a body",
      entryText("k", { fingerprint: postA, response: { status: 200, headers: {} } }),
    ],
    [
      "a header that is no string",
      entryText("k", { fingerprint: postA, response: { ...response, headers: { a: 1 } } }),
    ],
  ])("never runs a key again whose file is %s: it is unreadable, named in one warning", async (_, text) => {
    const dir = createTempDir({ [`${sha256("k")}.json`]: text });
    const warnings: string[] = [];
    const store = createIdempotencyStore({ sealer, dir, ttlSeconds: 60, warn: (m) => warnings.push(m) });
    const file = fileOf(dir, "k");
    expect(await store.begin("k", postA)).toEqual({ kind: "unreadable", file });
    expect(await store.begin("k", postA)).toEqual({ kind: "unreadable", file });
    expect(warnings).toEqual([expect.stringContaining(file)]);
    // Removed by whoever looked at it, the key is free again.
    rmSync(file);
    expect((await store.begin("k", postA)).kind).toBe("run");
  });

  it("never runs a key again whose file it cannot read", async () => {
    const { dir, store } = createStore();
    await expectRun(await store.begin("k", postA)).complete(response);
    // What a read that fails gives (as a file the process may not read does, but root reads any).
    rmSync(fileOf(dir, "k"));
    mkdirSync(fileOf(dir, "k"));
    const warnings: string[] = [];
    const restarted = createIdempotencyStore({ dir, ttlSeconds: 60, sealer, warn: (m) => warnings.push(m) });
    expect(await restarted.begin("k", postA)).toEqual({ kind: "unreadable", file: fileOf(dir, "k") });
    expect(warnings[0]).toContain("EISDIR");
  });

  it("reads a valid entry it did not write itself", async () => {
    const dir = createTempDir({ [`${sha256("k")}.json`]: entryText("k", { fingerprint: postA, response }) });
    expect(await createIdempotencyStore({ sealer, dir, ttlSeconds: 60 }).begin("k", postA)).toEqual({
      kind: "replay",
      response,
    });
  });

  it("keeps no answer, header or fingerprint in clear in its files, each 0600 in a 0700 folder", async () => {
    const parent = createTempDir();
    const { dir, store } = createStore({ dir: join(parent, "idempotency") });
    const secret = {
      ...response,
      body: Buffer.from('{"account":"DE89370400440532013000"}').toString("base64"),
    };
    await expectRun(await store.begin("k", postA)).complete(secret);
    const text = readFileSync(fileOf(dir, "k"), "utf8");
    for (const clear of ["DE89370400440532013000", secret.body, "location", "/transfers/7", postA])
      expect(text).not.toContain(clear);
    expect(statSync(fileOf(dir, "k")).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(await createIdempotencyStore({ sealer, dir, ttlSeconds: 60 }).begin("k", postA)).toEqual({
      kind: "replay",
      response: secret,
    });
  });

  it("answers unreadable for each key whose entry does not open with this key, naming each file", async () => {
    const { dir, store } = createStore();
    await expectRun(await store.begin("a", postA)).complete(response);
    await expectRun(await store.begin("b", postA)).complete(response);
    const warnings: string[] = [];
    const other = createSealer(Buffer.alloc(32, 8));
    const restarted = createIdempotencyStore({
      dir,
      ttlSeconds: 60,
      sealer: other,
      warn: (m) => warnings.push(m),
    });
    expect((await restarted.begin("a", postA)).kind).toBe("unreadable");
    expect((await restarted.begin("b", postA)).kind).toBe("unreadable");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("does not open with this state key");
    expect(warnings[0]).toContain(fileOf(dir, "a"));
  });

  it("does not open an entry moved into another key's file", async () => {
    const { dir, store } = createStore();
    await expectRun(await store.begin("a", postA)).complete(response);
    const moved = JSON.parse(readFileSync(fileOf(dir, "a"), "utf8"));
    writeFileSync(fileOf(dir, "b"), JSON.stringify({ ...moved, key: sha256("b") }));
    const restarted = createIdempotencyStore({ dir, ttlSeconds: 60, sealer, warn: () => {} });
    expect((await restarted.begin("b", postA)).kind).toBe("unreadable");
  });

  it("keeps recently used entries in memory and reads the others from disk", async () => {
    const { dir, store } = createStore({ cacheBytes: 600 });
    await expectRun(await store.begin("a", postA)).complete(response);
    await expectRun(await store.begin("b", postA)).complete(response);
    // Each entry is about 400 bytes: b pushed a out of memory.
    rmSync(fileOf(dir, "a"));
    rmSync(fileOf(dir, "b"));
    expect((await store.begin("b", postA)).kind).toBe("replay");
    expect((await store.begin("a", postA)).kind).toBe("run");
  });

  it("keeps the entries in memory when one larger than the whole cache comes", async () => {
    const { dir, store } = createStore({ cacheBytes: 600 });
    await expectRun(await store.begin("small", postA)).complete(response);
    await expectRun(await store.begin("large", postA)).complete({ ...response, body: "x".repeat(1000) });
    rmSync(fileOf(dir, "small"));
    expect((await store.begin("small", postA)).kind).toBe("replay");
  });

  it("frees the key and rejects when the response cannot be written", async () => {
    const parent = createTempDir({ "a-file": "" });
    const store = createIdempotencyStore({
      sealer,
      dir: join(parent, "a-file", "idempotency"),
      ttlSeconds: 60,
    });
    await expect(expectRun(await store.begin("k", postA)).complete(response)).rejects.toThrow();
    expect((await store.begin("k", postA)).kind).toBe("run");
  });

  it("sweeps expired files of keys never asked for again, and temp files a crash left behind", async () => {
    let offset = 0;
    const { dir, store } = createStore({ ttlSeconds: 1, clock: () => Date.now() + offset });
    await expectRun(await store.begin("old", postA)).complete(response);
    const leftover = join(dir, `${sha256("x")}.json.0a1b2c3d4e5f.tmp`);
    const fresh = join(dir, `${sha256("y")}.json.0a1b2c3d4e5f.tmp`);
    writeFileSync(leftover, "{");
    writeFileSync(fresh, "{");
    writeFileSync(join(dir, "notes.txt"), "");
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(leftover, anHourAgo, anHourAgo);
    offset = 2_000;
    await expectRun(await store.begin("new", postA)).complete(response);
    await store.flush();
    expect(readdirSync(dir).sort()).toEqual(
      [`${sha256("new")}.json`, `${sha256("y")}.json.0a1b2c3d4e5f.tmp`, "notes.txt"].sort(),
    );
  });
});
