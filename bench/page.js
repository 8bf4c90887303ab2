import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { recordLine } from "./history.js";
import { median } from "./lib.js";

const dist = new URL("../dist/", import.meta.url);
const RUNS = 1000;

/**
 * The run history page with 1000 runs in history: its page, its first page of runs, a text search through
 * them and one run, as serve's handler answers them (no socket), against `/_bass/health` in the same run.
 * The goal: each answers within 50 ms.
 */
export async function measurePage({ rounds = 21 } = {}) {
  const { createServeApp } = await import(new URL("serve/app.js", dist));
  const { createHistoryStore, resolveHistoryOptions } = await import(new URL("history/store.js", dist));
  const dir = mkdtempSync(join(tmpdir(), "bass-bench-page-"));
  try {
    writeFileSync(join(dir, "bass.config.yaml"), "systems: {}\nserve:\n  workers: 0\n");
    const history = createHistoryStore(resolveHistoryOptions(dir));
    for (let index = 0; index < RUNS; index++) {
      const line = recordLine(index);
      history.writeLine(JSON.parse(line).id, line);
    }
    await history.flush();
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir, workers: 0 });
    const lastId = JSON.parse(recordLine(RUNS - 1)).id;
    const get = async (url) => {
      const started = performance.now();
      const reply = await app.handle({
        method: "GET",
        url,
        headers: { host: "127.0.0.1:3000" },
        body: new Uint8Array(),
      });
      if (reply.status !== 200) throw new Error(`${url} answered ${reply.status}`);
      return performance.now() - started;
    };
    const time = async (url) => {
      await get(url);
      const times = [];
      for (let round = 0; round < rounds; round++) times.push(await get(url));
      return median(times);
    };
    const health = await time("/_bass/health");
    const cases = [
      ["/_bass/", "/_bass/"],
      [`25 of ${RUNS} runs`, "/_bass/runs?limit=25"],
      [`search of ${RUNS} runs`, "/_bass/runs?limit=25&q=nobody-has-this"],
      ["one run", `/_bass/runs/${lastId}`],
    ];
    const rows = [];
    for (const [name, url] of cases) {
      rows.push({
        name: `page: ${name}`,
        value: await time(url),
        baseline: { ms: health, label: "/_bass/health" },
        goal: { text: "< 50 ms", max: 50, of: "value" },
      });
    }
    await app.close();
    rows[0].note = `the run history page's routes with ${RUNS} runs in history, as serve's handler answers them (median of ${rounds}; no socket)`;
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
