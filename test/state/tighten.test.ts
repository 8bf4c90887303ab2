import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { removeLeftoverTemps, tightenStateDir } from "../../src/state/tighten.js";
import { createTempDir } from "../_helpers.js";

const mode = (path: string) => statSync(path).mode & 0o777;
/** A pid no process has: above Linux's largest. */
const gonePid = 4_194_305;

describe("tightenStateDir", () => {
  it("makes older state private: folders 0700, files 0600", async () => {
    const dir = join(createTempDir(), ".bass");
    mkdirSync(join(dir, "history"), { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, "history", "a.jsonl"), "{}\n", { mode: 0o644 });
    writeFileSync(join(dir, "mockcore.json"), "{}", { mode: 0o666 });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, "mockcore.json"), 0o666);
    await tightenStateDir(dir);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, "history"))).toBe(0o700);
    expect(mode(join(dir, "history", "a.jsonl"))).toBe(0o600);
    expect(mode(join(dir, "mockcore.json"))).toBe(0o600);
  });

  it("removes the temp files of writers that are gone, and keeps a live writer's", async () => {
    const dir = join(createTempDir(), ".bass");
    mkdirSync(join(dir, "idempotency"), { recursive: true });
    const gone = join(dir, `mockcore.json.${gonePid}-0-3.tmp`);
    const goneDeep = join(dir, "idempotency", `${"a".repeat(64)}.json.${gonePid}-2-0a1b.tmp`);
    const live = join(dir, `mockcore.json.${process.pid}-0-4.tmp`);
    for (const file of [gone, goneDeep, live]) writeFileSync(file, "{");
    await tightenStateDir(dir);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(goneDeep)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });

  it("leaves a project without .bass alone", async () => {
    const parent = createTempDir();
    await tightenStateDir(join(parent, ".bass"));
    expect(existsSync(join(parent, ".bass"))).toBe(false);
  });
});

describe("removeLeftoverTemps", () => {
  it("removes a gone writer's temps beside a data file, and nothing else", async () => {
    const dir = createTempDir();
    const data = join(dir, "core.json");
    const names = [
      `core.json.${gonePid}-0-1.tmp`,
      `core.json.${process.pid}-0-1.tmp`,
      "core.json",
      "other.json.1-0-1.tmp",
    ];
    for (const name of names) writeFileSync(join(dir, name), "{");
    await removeLeftoverTemps(data);
    expect(names.filter((name) => existsSync(join(dir, name)))).toEqual(names.slice(1));
  });
});
