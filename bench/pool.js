import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { Piscina } from "piscina";
import { median } from "./lib.js";

const dist = new URL("../dist/", import.meta.url);

/** A task the size of serve's (bench.serve's input) and an answer the size of its result (a record line). */
const TASK = {
  version: 1,
  integration: "bench.serve",
  input: {
    payload: { first_name: " Grace ", email: "grace.hopper@example.com" },
    headers: { "content-type": "application/json", host: "127.0.0.1:3000", "user-agent": "autocannon" },
    method: "POST",
    fullpath: "/bench/people",
  },
  trigger: "http",
  keepMasked: false,
};
const ANSWER = `({
  runId: "01M8B66HKFPSDDFH7KGQG6Y69R",
  status: "success",
  output: { status: 201, headers: {}, payload: null },
  outputJson: '{"first_name":"Grace","email":"grace.hopper@example.com"}',
  recordLine: "x".repeat(900),
  maskedPath: "/bench/people",
})`;

const IN_FLIGHT = 10;
const WORKERS = 2;

/**
 * What serve's worker threads cost a request before any run: the round trip of a task of serve's size to
 * a worker that answers at once, through bass's thread pool (src/pool/threads.ts), against the same round
 * trip through piscina (which the pool replaced: one postMessage, AsyncResource and timing per task) and
 * over a bare Worker's postMessage. CPU of this whole process (all threads) per task,
 * 10 tasks in flight on 2 workers, rounds of `tasks` taking turns; medians of the rounds.
 */
export async function measurePool({ rounds = 5, tasks = 20_000 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bass-bench-pool-"));
  const file = join(dir, "worker.mjs");
  writeFileSync(file, `export default () => ${ANSWER};\n`);
  const bareFile = join(dir, "bare-worker.mjs");
  writeFileSync(
    bareFile,
    `import { parentPort } from "node:worker_threads";
parentPort.on("message", ({ id }) => parentPort.postMessage({ id, answer: ${ANSWER} }));\n`,
  );
  const pool = new Piscina({
    filename: pathToFileURL(file).href,
    minThreads: WORKERS,
    maxThreads: WORKERS,
    concurrentTasksPerWorker: 16,
    idleTimeout: Number.POSITIVE_INFINITY,
    atomics: "disabled",
  });
  const bare = bareWorkers(bareFile);
  const batchFile = join(dir, "batch-worker.mjs");
  writeFileSync(
    batchFile,
    `import { parentPort } from "node:worker_threads";
import { answerBatches } from ${JSON.stringify(new URL("pool/threads.js", dist).href)};
answerBatches(parentPort, async () => ${ANSWER});\n`,
  );
  const { createThreadPool } = await import(new URL("pool/threads.js", dist));
  const threads = createThreadPool({ filename: batchFile, size: WORKERS, perThread: 16 });
  try {
    const ways = {
      threads: () => threads.run(TASK),
      piscina: () => pool.run(TASK),
      bare: () => bare.run(TASK),
    };
    const times = { threads: [], piscina: [], bare: [] };
    for (const run of Object.values(ways)) await cpuPerTask(run, tasks / 4);
    for (let round = 0; round < rounds; round++)
      for (const [name, run] of Object.entries(ways)) times[name].push(await cpuPerTask(run, tasks));
    const [perTask, piscinaPerTask, barePerTask] = [times.threads, times.piscina, times.bare].map(median);
    return [
      {
        name: "worker round trip (bass's pool)",
        value: perTask / 1000,
        baseline: { ms: piscinaPerTask / 1000, label: "piscina" },
        note: `a task of serve's size to a worker thread and its answer back cost ${perTask.toFixed(1)} µs of CPU (all threads) through bass's thread pool (src/pool/threads.ts: a batch per turn each way), ${piscinaPerTask.toFixed(1)} µs through piscina set up as bass had it, ${barePerTask.toFixed(1)} µs over a bare Worker's postMessage per task (${IN_FLIGHT} in flight on ${WORKERS} workers, medians of ${rounds} rounds of ${tasks} tasks, taking turns); serve pays it on every request that runs in a worker`,
      },
    ];
  } finally {
    await Promise.all([pool.destroy(), bare.close(), threads.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Workers of `file` (each message answered with ANSWER at once), tasks dealt out in turn. */
function bareWorkers(file) {
  const workers = Array.from({ length: WORKERS }, () => new Worker(file));
  const waiting = new Map();
  let next = 0;
  for (const worker of workers) {
    worker.on("message", ({ id, answer }) => {
      waiting.get(id)(answer);
      waiting.delete(id);
    });
  }
  return {
    run: (task) =>
      new Promise((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        workers[id % WORKERS].postMessage({ id, task });
      }),
    close: () => Promise.all(workers.map((worker) => worker.terminate())),
  };
}

/** µs of this process's CPU per task for `count` tasks of `run`, IN_FLIGHT at a time. */
async function cpuPerTask(run, count) {
  let started = 0;
  const lane = async () => {
    while (started < count) {
      started++;
      await run();
    }
  };
  const before = process.cpuUsage();
  const clock = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const used = process.cpuUsage(before);
  if (performance.now() - clock <= 0) throw new Error("the pool bench measured no time");
  return (used.user + used.system) / count;
}
