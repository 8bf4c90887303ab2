import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSealer } from "../../src/state/seal.js";
import { openStateKey, parseStateKey, stateKeyFile } from "../../src/state/state-key.js";
import { createTempDir } from "../_helpers.js";

const hexKey = "0f".repeat(32);
const plain = Buffer.from('{"account":"DE89370400440532013000"}');

describe("the sealer", () => {
  const sealer = createSealer(Buffer.alloc(32, 1));

  it("opens what it sealed, under the same context only", () => {
    const sealed = sealer.seal(plain, "entry-a");
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain("DE89");
    expect(sealer.open(sealed, "entry-a")).toEqual(plain);
    expect(sealer.open(sealed, "entry-b")).toBeUndefined();
  });

  it("seals the same bytes differently each time", () => {
    expect(sealer.seal(plain, "a")).not.toBe(sealer.seal(plain, "a"));
  });

  it("opens nothing changed, cut short, or sealed with another key", () => {
    const sealed = sealer.seal(plain, "a");
    const bytes = Buffer.from(sealed.slice(3), "base64");
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    for (const text of [`v1.${bytes.toString("base64")}`, sealed.slice(0, 20), "v1.", "", "v2.abc", "plain"])
      expect(sealer.open(text, "a")).toBeUndefined();
    expect(createSealer(Buffer.alloc(32, 2)).open(sealed, "a")).toBeUndefined();
  });

  it("refuses a key that is not 32 bytes", () => {
    expect(() => createSealer(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe("parseStateKey", () => {
  it.each([
    ["64 hex characters", hexKey],
    ["hex with a newline", `${hexKey}\n`],
    ["base64", Buffer.alloc(32, 9).toString("base64")],
    ["base64url without padding", Buffer.alloc(32, 250).toString("base64url")],
  ])("reads %s", (_, text) => {
    expect(parseStateKey(text)?.byteLength).toBe(32);
  });

  it.each([
    ["short hex", "0f".repeat(16)],
    ["base64 of 16 bytes", Buffer.alloc(16).toString("base64")],
    ["words", "my key"],
    ["empty", ""],
  ])("refuses %s", (_, text) => {
    expect(parseStateKey(text)).toBeUndefined();
  });
});

describe("openStateKey", () => {
  it("makes .bass/state.key on first use, 0600 in a 0700 folder, and keeps using it", async () => {
    const dir = createTempDir();
    const first = await openStateKey(dir, {});
    const file = stateKeyFile(dir);
    expect(readFileSync(file, "utf8")).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, ".bass")).mode & 0o777).toBe(0o700);
    const sealed = first.seal(plain, "x");
    expect((await openStateKey(dir, {})).open(sealed, "x")).toEqual(plain);
    expect(readdirSync(join(dir, ".bass"))).toEqual(["state.key"]);
  });

  it("gives processes that start together one key", async () => {
    const dir = createTempDir();
    const sealers = await Promise.all(Array.from({ length: 8 }, () => openStateKey(dir, {})));
    const sealed = sealers[0]?.seal(plain, "x") ?? "";
    for (const sealer of sealers) expect(sealer.open(sealed, "x")).toEqual(plain);
    expect(readdirSync(join(dir, ".bass"))).toEqual(["state.key"]);
  });

  it("takes BASS_STATE_KEY over the file, and writes no file then", async () => {
    const dir = createTempDir();
    const fromEnv = await openStateKey(dir, { BASS_STATE_KEY: hexKey });
    expect(existsSync(stateKeyFile(dir))).toBe(false);
    const sealed = fromEnv.seal(plain, "x");
    expect(createSealer(Buffer.from(hexKey, "hex")).open(sealed, "x")).toEqual(plain);
  });

  it("refuses a BASS_STATE_KEY that is no key, without quoting it", async () => {
    const dir = createTempDir();
    const given = "hunter2-not-a-key";
    const opening = openStateKey(dir, { BASS_STATE_KEY: given });
    await expect(opening).rejects.toThrow(/BASS_STATE_KEY is not a state key: give 64 hex characters/);
    await expect(opening).rejects.not.toThrow(given);
  });

  it("refuses a key file that holds no key, saying what to do", async () => {
    const dir = createTempDir();
    mkdirSync(join(dir, ".bass"));
    writeFileSync(stateKeyFile(dir), "not a key\n");
    await expect(openStateKey(dir, {})).rejects.toThrow(/state\.key is not a state key.*delete it/);
  });
});
