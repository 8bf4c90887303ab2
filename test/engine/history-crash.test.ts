import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir } from "../_helpers.js";

// The built store (npm test builds first): a child process writes records until it is killed with SIGKILL.
const writer = `
import { createHistoryStore } from ${JSON.stringify(join(import.meta.dirname, "../../dist/engine/history.js"))};
import { createRunId } from ${JSON.stringify(join(import.meta.dirname, "../../dist/engine/run-id.js"))};
const store = createHistoryStore({ dir: process.argv[1], maxRuns: 100000, storePayloads: true });
const payload = "x".repeat(200000);
let written = 0;
for (;;) {
  const id = createRunId();
  store.write({ id, integration: "a", status: "success", trigger: "test", started_at: new Date().toISOString(),
    ended_at: null, duration_ms: null, labels: [], async: false,
    items: [{ seq: 1, kind: "INPUT", at: "", data: { method: "POST", fullpath: "/", path: {}, params: {}, headers: {}, payload } }] });
  await store.flush();
  if (++written === 5) process.stdout.write("ready\\n");
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

    const records = readdirSync(dir).filter((name) => name.endsWith(".json"));
    expect(records.length).toBeGreaterThanOrEqual(5);
    for (const name of records) {
      const record = JSON.parse(readFileSync(join(dir, name), "utf8"));
      expect(`${record.id}.json`).toBe(name);
      expect(record.items[0].data.payload).toHaveLength(200000);
    }
  });
});
