import { closeSync, mkdtempSync, openSync, rmSync, write } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { median } from "./lib.js";

const dist = new URL("../dist/", import.meta.url);
const writeAt = promisify(write);

/** Records per batch: what serve's 10 ms group-commit wait gathers at 16 k requests per second. */
const BATCH_LINES = 160;

/** A record as serve writes it for a small POST through one echo call, its line about 1 KB. */
function recordLine(index) {
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, index % 1000)).toISOString();
  const payload = { first_name: " Grace ", email: "grace.hopper@example.com" };
  return JSON.stringify({
    id: `01KBX4V7QZ${String(index).padStart(16, "0")}`,
    integration: "bench.people",
    status: "success",
    trigger: "http",
    started_at: at,
    ended_at: at,
    duration_ms: 1,
    labels: [],
    async: false,
    items: [
      {
        seq: 1,
        kind: "INPUT",
        at,
        data: {
          method: "POST",
          fullpath: "/bench/people",
          path: {},
          params: {},
          headers: { host: "127.0.0.1:4000", "content-type": "application/json", "content-length": "61" },
          payload,
        },
      },
      {
        seq: 2,
        kind: "REQUEST",
        at,
        label: "person",
        sridx: null,
        duration_ms: 0,
        request: { service_name: "create-person", payload: { firstName: "Grace", email: payload.email } },
        response: { success: true, payload: { firstName: "Grace", email: payload.email }, messages: [] },
      },
      { seq: 3, kind: "OUTPUT", at, data: { status: 201, headers: {}, payload: { first_name: "Grace" } } },
    ],
  });
}

/**
 * The history store's reused encode buffer: batches of BATCH_LINES record lines encoded and written
 * (one write per batch, awaited, as the store does) with the store's encoder, which keeps its buffer
 * for the next batch, against a fresh encoder per batch, whose buffer is made anew each time. Each write
 * goes to the start of one temp file so the file stays small. Rounds of `batches` batches alternate after
 * a warm-up round each; the values are the medians of the CPU time (user and system, every thread, so
 * the page faults and the write count) per batch.
 */
export async function measureHistory({ rounds = 11, batches = 2000 } = {}) {
  const { createLineEncoder } = await import(new URL("engine/history-encoder.js", dist));
  const lines = Array.from({ length: BATCH_LINES }, (_, index) => recordLine(index));
  const root = mkdtempSync(join(tmpdir(), "bass-bench-history-"));
  const fd = openSync(join(root, "segment.jsonl"), "w");
  try {
    const reused = createLineEncoder();
    const writeBatches = async (encoderFor) => {
      const started = process.cpuUsage();
      for (let batch = 0; batch < batches; batch++) {
        const bytes = encoderFor().encode(lines);
        await writeAt(fd, bytes, 0, bytes.length, 0);
      }
      const { user, system } = process.cpuUsage(started);
      return (user + system) / 1000 / batches;
    };
    const timeReused = () => writeBatches(() => reused);
    const timeFresh = () => writeBatches(createLineEncoder);
    await timeReused();
    await timeFresh();
    const reusedTimes = [];
    const freshTimes = [];
    for (let round = 0; round < rounds; round++) {
      reusedTimes.push(await timeReused());
      freshTimes.push(await timeFresh());
    }
    const kept = median(reusedTimes);
    const fresh = median(freshTimes);
    const spread = (times) =>
      `${(Math.min(...times) * 1000).toFixed(0)}–${(Math.max(...times) * 1000).toFixed(0)} µs`;
    const perRecord = (ms) => ((ms * 1000) / BATCH_LINES).toFixed(2);
    const bytes = lines.reduce((sum, line) => sum + line.length + 1, 0);
    return [
      {
        name: "history batch, reused buffer",
        value: kept,
        baseline: { ms: fresh, label: "fresh buffer per batch" },
        note: `a history batch of ${BATCH_LINES} records (${(bytes / 1024).toFixed(0)} KiB) encoded and written with the reused buffer takes ${(kept / fresh).toFixed(2)}× a fresh buffer per batch (${perRecord(kept)} µs against ${perRecord(fresh)} µs a record; median CPU times of ${rounds} alternating rounds of ${batches} batches; reused rounds ${spread(reusedTimes)}, fresh ${spread(freshTimes)} a batch)`,
      },
    ];
  } finally {
    closeSync(fd);
    rmSync(root, { recursive: true, force: true });
  }
}
