import { describe, expect, it } from "vitest";
import { createRunId, isRunId, runIdTime } from "../../src/engine/run-id.js";

describe("run ids", () => {
  it("are 26 characters of Crockford base32 that carry their millisecond", () => {
    const now = Date.now() + 60_000;
    const id = createRunId(now);
    expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isRunId(id)).toBe(true);
    expect(runIdTime(id)).toBe(now);
  });

  it("sort in creation order within one millisecond", () => {
    const now = Date.now() + 120_000;
    const ids = Array.from({ length: 1000 }, () => createRunId(now));
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => runIdTime(id) === now)).toBe(true);
  });

  it("still sort after the clock steps back", () => {
    const later = createRunId(Date.now() + 180_000);
    const earlier = createRunId(Date.now());
    expect(earlier > later).toBe(true);
  });

  it("draw a fresh random part in a new millisecond", () => {
    const a = createRunId(Date.now() + 240_000);
    const b = createRunId(Date.now() + 240_001);
    expect(a.slice(10)).not.toBe(b.slice(10));
  });

  it("draw a fresh random part in every millisecond, past many refills of their random bytes", () => {
    const start = Date.now() + 300_000;
    const parts = Array.from({ length: 2000 }, (_, index) => createRunId(start + index).slice(10));
    expect(new Set(parts).size).toBe(2000);
  });

  it.each([
    ["01ARZ3NDEKTSV4RRFFQ69G5FAV", 1469922850259],
    ["00000000000000000000000000", 0],
    ["7ZZZZZZZZZZZZZZZZZZZZZZZZZ", 2 ** 48 - 1],
  ])("read the time of %s", (id, time) => {
    expect(runIdTime(id)).toBe(time);
  });

  it.each([
    ["../x"],
    ["../../../../etc/passwd"],
    ["01ARZ3NDEKTSV4RRFFQ69G5FA"],
    ["01ARZ3NDEKTSV4RRFFQ69G5FAVV"],
    ["01arz3ndektsv4rrffq69g5fav"],
    ["01ARZ3NDEKTSV4RRFFQ69G5FAI"],
    ["01ARZ3NDEKTSV4RRFFQ69G5FAU"],
    ["81ARZ3NDEKTSV4RRFFQ69G5FAV"],
    ["01ARZ3NDEK/SV4RRFFQ69G5FAV"],
    ["01ARZ3NDEKTSV4RRFFQ69G5FAV\n"],
    [""],
  ])("reject %j as a run id", (text) => {
    expect(isRunId(text)).toBe(false);
    expect(runIdTime(text)).toBeNaN();
  });

  it.each([[-1], [0], [1.5], [2 ** 48], [Number.NaN]])("refuse the time %d", (now) => {
    expect(() => createRunId(now)).toThrow(RangeError);
  });
});
