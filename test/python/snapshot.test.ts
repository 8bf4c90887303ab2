import { existsSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { version } from "pyodide";
import { afterEach, describe, expect, it, vi } from "vitest";
import { snapshotPath, userSnapshot } from "../../src/python/snapshot.js";
import { createTempDir } from "../_helpers.js";

describe("snapshotPath", () => {
  it("is BASS_CACHE_DIR's, else XDG_CACHE_HOME's, else ~/.cache's, per Pyodide version", () => {
    const name = `python-${version}.snapshot`;
    expect(snapshotPath(version, { BASS_CACHE_DIR: "/b", XDG_CACHE_HOME: "/x" })).toBe(join("/b", name));
    expect(snapshotPath(version, { XDG_CACHE_HOME: "/x" })).toBe(join("/x", "bass", name));
    expect(snapshotPath(version, {})).toBe(join(homedir(), ".cache", "bass", name));
  });
});

describe("userSnapshot", () => {
  const saved = process.env.BASS_CACHE_DIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.BASS_CACHE_DIR;
    else process.env.BASS_CACHE_DIR = saved;
    vi.restoreAllMocks();
  });

  it("makes the snapshot once, saying so, while a second caller waits for it", async () => {
    process.env.BASS_CACHE_DIR = join(createTempDir({}), "cache");
    const said = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const [first, second] = await Promise.all([userSnapshot(version), userSnapshot(version)]);
    expect(first?.byteLength).toBeGreaterThan(1_000_000);
    expect(second?.byteLength).toBe(first?.byteLength);
    const lines = said.mock.calls.map(([text]) => String(text));
    expect(lines.filter((line) => line.includes("preparing Python for its first use"))).toHaveLength(1);
    const file = snapshotPath(version);
    expect(existsSync(`${file}.lock`)).toBe(false);
    const made = statSync(file).mtimeMs;
    await userSnapshot(version);
    expect(statSync(file).mtimeMs).toBe(made);
  }, 60_000);

  it("takes over a lock a maker left long ago, and loads without a snapshot where it cannot write", async () => {
    const dir = createTempDir({});
    process.env.BASS_CACHE_DIR = dir;
    const lock = `${snapshotPath(version)}.lock`;
    writeFileSync(lock, "");
    const longAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lock, longAgo, longAgo);
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect((await userSnapshot(version))?.byteLength).toBeGreaterThan(1_000_000);

    const blocked = join(createTempDir({ "a-file": "" }), "a-file");
    process.env.BASS_CACHE_DIR = join(blocked, "cache");
    const said = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect(await userSnapshot(version)).toBeUndefined();
    expect(String(said.mock.calls.at(-1)?.[0])).toMatch(/^bass: Python loads without its start-up snapshot/);
  }, 60_000);
});
