import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createBatch } from "../../src/serve/batch.js";

describe("createBatch", () => {
  it("hands the items of one turn over together, in order, once the turn ends", async () => {
    const handled: number[][] = [];
    const batch = createBatch<number>((items) => handled.push(items));
    batch.add(1);
    batch.add(2);
    batch.add(3);
    expect(handled).toEqual([]);
    await nextTurn();
    batch.add(4);
    await nextTurn();
    expect(handled).toEqual([[1, 2, 3], [4]]);
  });

  it("waits waitMs after its first item, and flush hands them over at once without a second handling", async () => {
    const handled: string[][] = [];
    const batch = createBatch<string>((items) => handled.push(items), 20);
    batch.add("a");
    await nextTurn();
    batch.add("b");
    expect(handled).toEqual([]);
    await sleep(40);
    expect(handled).toEqual([["a", "b"]]);
    batch.add("c");
    batch.flush();
    batch.flush();
    expect(handled).toEqual([["a", "b"], ["c"]]);
    await sleep(40);
    expect(handled).toEqual([["a", "b"], ["c"]]);
  });
});
