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
export function recordLine(index) {
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, index % 1000)).toISOString();
  const payload = { first_name: " Grace ", email: "grace.hopper@example.com" };
  const person = { firstName: "Grace", email: payload.email };
  const headers = { host: "127.0.0.1:4000", "content-type": "application/json", "content-length": "61" };
  const input = { method: "POST", fullpath: "/bench/people", path: {}, params: {}, headers, payload };
  const request = { service_name: "create-person", payload: person };
  const response = { success: true, payload: person, messages: [] };
  const output = { status: 201, headers: {}, payload: { first_name: "Grace" } };
  const run = { status: "success", trigger: "http", started_at: at, ended_at: at, duration_ms: 1 };
  return JSON.stringify({
    id: `01KBX4V7QZ${String(index).padStart(16, "0")}`,
    integration: "bench.people",
    ...run,
    labels: [],
    async: false,
    items: [
      { seq: 1, kind: "INPUT", at, data: input },
      { seq: 2, kind: "REQUEST", at, label: "person", sridx: null, duration_ms: 0, request, response },
      { seq: 3, kind: "OUTPUT", at, data: output },
    ],
  });
}

/**
 * The history store's batch write: batches of BATCH_LINES record lines encoded (a fresh buffer per
 * batch) and written, one awaited write per batch as the store does, against writing the same bytes
 * encoded once beforehand, so the ratio is what encoding adds to a write. Each write goes to the start of
 * one temp file so the file stays small. Rounds of `batches` batches alternate after a warm-up round each;
 * the values are the medians of the CPU time (user and system, every thread, so the write counts) per batch.
 *
 * The store once kept its encode buffer for the next batch. This case measured it (commit 7886e1d) against
 * a fresh buffer per batch, 14 runs on 2 shared cores at load 2 to 5: the reused buffer took 0.65× to
 * 1.03× the fresh one's CPU time (0.02 to 0.16 µs a record of a 152 KiB batch, against some 60 µs a serve
 * request costs), and the rounds of each run overlapped. A gain within the spread, so the trick went.
 */
export async function measureHistory({ rounds = 11, batches = 2000 } = {}) {
  const { encodeLines } = await import(new URL("history/encoder.js", dist));
  const lines = Array.from({ length: BATCH_LINES }, (_, index) => recordLine(index));
  const encoded = encodeLines(lines);
  const root = mkdtempSync(join(tmpdir(), "bass-bench-history-"));
  const fd = openSync(join(root, "segment.jsonl"), "w");
  try {
    const writeBatches = async (bytesOf) => {
      const started = process.cpuUsage();
      for (let batch = 0; batch < batches; batch++) {
        const bytes = bytesOf();
        await writeAt(fd, bytes, 0, bytes.length, 0);
      }
      const { user, system } = process.cpuUsage(started);
      return (user + system) / 1000 / batches;
    };
    const timeStore = () => writeBatches(() => encodeLines(lines));
    const timeBare = () => writeBatches(() => encoded);
    await timeStore();
    await timeBare();
    const storeTimes = [];
    const bareTimes = [];
    for (let round = 0; round < rounds; round++) {
      storeTimes.push(await timeStore());
      bareTimes.push(await timeBare());
    }
    const store = median(storeTimes);
    const bare = median(bareTimes);
    const spread = (times) =>
      `${(Math.min(...times) * 1000).toFixed(0)}–${(Math.max(...times) * 1000).toFixed(0)} µs`;
    const perRecord = (ms) => ((ms * 1000) / BATCH_LINES).toFixed(2);
    return [
      {
        name: "history batch, encode + write",
        value: store,
        baseline: { ms: bare, label: "write of encoded bytes" },
        note: `a history batch of ${BATCH_LINES} records (${(encoded.length / 1024).toFixed(0)} KiB) encoded and written takes ${(store / bare).toFixed(2)}× the write of the same bytes encoded beforehand (${perRecord(store)} µs against ${perRecord(bare)} µs a record; median CPU times of ${rounds} alternating rounds of ${batches} batches; encode + write rounds ${spread(storeTimes)}, write ${spread(bareTimes)} a batch)`,
      },
    ];
  } finally {
    closeSync(fd);
    rmSync(root, { recursive: true, force: true });
  }
}
