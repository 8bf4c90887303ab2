import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createHistoryStore } from "../../src/history/store.js";
import { createTempDir } from "../_helpers.js";

// The built store (npm test builds first): a child process writes records until it is killed with SIGKILL.
const writer = `
import { createHistoryStore } from ${JSON.stringify(join(import.meta.dirname, "../../dist/history/store.js"))};
import { createRunId } from ${JSON.stringify(join(import.meta.dirname, "../../dist/engine/run-id.js"))};
const store = createHistoryStore({ dir: process.argv[1], maxRuns: 100000, storePayloads: true });
const payload = "x".repeat(200000);
for (let turn = 1; ; turn++) {
  for (let i = 0; i < 10; i++) {
    store.write({ id: createRunId(), integration: "a", status: "success", trigger: "test",
      started_at: new Date().toISOString(), ended_at: null, duration_ms: null, labels: [], async: false,
      items: [{ seq: 1, kind: "INPUT", at: "", data: { method: "POST", fullpath: "/", path: {}, params: {}, headers: {}, payload } }] });
  }
  // Every fifth turn waits for the disk, so records keep landing; the others let batches grow.
  if (turn % 5 === 0) await store.flush();
  else await new Promise((resolve) => setImmediate(resolve));
  if (turn === 10) process.stdout.write("ready\\n");
}
`;

describe("the history store after kill -9", () => {
  it("holds only complete records: each one parses and has its items", async () => {
    const dir = createTempDir();
    const child = spawn(process.execPath, ["--input-type=module", "-e", writer, dir], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 150));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));

    // On disk: whole lines, each a record; only the end of a segment may hold a line cut short.
    let whole = 0;
    for (const name of readdirSync(dir)) {
      expect(name).toMatch(/^[0-9A-Z]{26}(-\d+)?\.jsonl$/);
      const lines = readFileSync(join(dir, name), "utf8").split("\n");
      for (const line of lines.slice(0, -1)) {
        expect(JSON.parse(line).items[0].data.payload).toHaveLength(200000);
        whole++;
      }
    }
    expect(whole).toBeGreaterThanOrEqual(100);
    // The store reads every whole record and skips a cut line.
    const records = await createHistoryStore({ dir, maxRuns: 100000, storePayloads: true }).list();
    expect(records).toHaveLength(whole);
    for (const record of records)
      expect(record.items[0]).toMatchObject({ data: { payload: "x".repeat(200000) } });
  });
});
