import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createThreadPool, type ThreadPool } from "../../src/pool/threads.js";

// Workers start from the build, as the run pool's do: `npm test` builds first.
const threads = pathToFileURL(join(import.meta.dirname, "../../dist/pool/threads.js")).href;

/**
 * A worker that answers `{ n }` with `n * 2` after `wait` ms, saying how many messages it held at once at
 * most; it ends its thread on `exit`.
 */
const worker = `import { parentPort, threadId } from "node:worker_threads";
import { answerBatches } from ${JSON.stringify(threads)};
let held = 0;
let most = 0;
const answerer = answerBatches(parentPort, async ({ n, wait = 0, exit, uncloneable, retire }) => {
  if (exit) process.exit(3);
  if (retire) answerer.retire("asked to");
  if (uncloneable) return { doubled: () => n * 2 };
  most = Math.max(most, ++held);
  await new Promise((resolve) => setTimeout(resolve, wait));
  held--;
  return { doubled: n * 2, thread: threadId, most };
});
`;

let pool: ThreadPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

function createPool(options: { size?: number; perThread?: number; source?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "bass-threads-"));
  const file = join(dir, "worker.mjs");
  writeFileSync(file, options.source ?? worker);
  const exits: number[] = [];
  const idle: unknown[] = [];
  const retired: string[] = [];
  pool = createThreadPool({
    filename: file,
    workerData: undefined,
    size: options.size ?? 2,
    perThread: options.perThread ?? 16,
    onIdleError: (error) => idle.push(error),
    onExit: () => exits.push(Date.now()),
    onRetire: (reason) => retired.push(reason),
  });
  return { pool, exits, idle, retired, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

type Answer = { doubled: number; thread: number; most: number };

describe("the thread pool", () => {
  it("answers every message with its own answer, spread over its workers", async () => {
    const { pool, cleanup } = createPool();
    const answers = (await Promise.all(
      Array.from({ length: 40 }, (_, n) => pool.run({ n, wait: n % 3 })),
    )) as Answer[];
    cleanup();
    expect(answers.map((answer) => answer.doubled)).toEqual(Array.from({ length: 40 }, (_, n) => n * 2));
    expect(new Set(answers.map((answer) => answer.thread)).size).toBe(2);
  });

  it("holds at most perThread messages in a worker and queues the rest", async () => {
    const { pool, cleanup } = createPool({ size: 1, perThread: 2 });
    const answers = (await Promise.all(
      Array.from({ length: 6 }, (_, n) => pool.run({ n, wait: 20 })),
    )) as Answer[];
    cleanup();
    expect(answers.map((answer) => answer.doubled)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(Math.max(...answers.map((answer) => answer.most))).toBe(2);
  });

  it("rejects what a worker that ended held, replaces it, and goes on", async () => {
    const { pool, exits, idle, cleanup } = createPool({ size: 1 });
    const [ended, alongside] = await Promise.allSettled([
      pool.run({ n: 1, exit: true }),
      pool.run({ n: 2, wait: 50 }),
    ]);
    expect(ended).toMatchObject({
      status: "rejected",
      reason: { message: "the worker thread exited with code 3" },
    });
    expect(alongside.status).toBe("rejected");
    expect(exits).toHaveLength(1);
    expect(idle).toEqual([]);
    expect(((await pool.run({ n: 21 })) as Answer).doubled).toBe(42);
    expect(pool.threads).toHaveLength(1);
    cleanup();
  });

  it("replaces a worker that asks to be, once it answered what it held", async () => {
    const { pool, exits, idle, retired, cleanup } = createPool({ size: 1 });
    const [first, alongside] = (await Promise.all([
      pool.run({ n: 1, wait: 10 }),
      pool.run({ n: 2, wait: 10, retire: true }),
    ])) as Answer[];
    expect([first?.doubled, alongside?.doubled]).toEqual([2, 4]);
    const next = (await pool.run({ n: 3 })) as Answer;
    expect(next.doubled).toBe(6);
    expect(next.thread).not.toBe(first?.thread);
    expect(retired).toEqual(["asked to"]);
    // The worker that retired ends, and is not reported as one that failed.
    await vi.waitFor(() => expect(exits).toHaveLength(1));
    expect(idle).toEqual([]);
    expect(pool.threads).toHaveLength(1);
    cleanup();
  });

  it("rejects queued messages once closed, and takes no more", async () => {
    const { pool, cleanup } = createPool({ size: 1, perThread: 1 });
    const running = pool.run({ n: 1, wait: 200 }).catch((error: unknown) => error);
    const queued = pool.run({ n: 2 }).catch((error: unknown) => error);
    await pool.close();
    cleanup();
    expect(await queued).toMatchObject({ message: "the pool is closed" });
    await expect(pool.run({ n: 3 })).rejects.toThrow("the pool is closed");
    // The worker it held ended with the pool.
    expect(await running).toBeInstanceOf(Error);
  });

  it("fails only the message that does not clone, going out or coming back", async () => {
    const { pool, cleanup } = createPool({ size: 1 });
    const outcomes = await Promise.allSettled([
      pool.run({ n: 1 }),
      pool.run({ n: 2, notData: () => 2 }),
      pool.run({ n: 3, uncloneable: true }),
      pool.run({ n: 4 }),
    ]);
    cleanup();
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "rejected",
      "rejected",
      "fulfilled",
    ]);
    expect(outcomes[2]).toMatchObject({ reason: { message: expect.stringContaining("could not be sent") } });
    expect(pool.threads).toHaveLength(1);
  });

  it("fails what waits when a worker cannot start, and tries again later, not at once", async () => {
    const { pool, exits, cleanup } = createPool({ size: 2, source: "throw new Error('no such module');\n" });
    await expect(pool.run({ n: 1 })).rejects.toThrow("no such module");
    await new Promise((resolve) => setTimeout(resolve, 400));
    cleanup();
    // Without a pause between starts, two workers that end as they start end hundreds of times here.
    expect(exits.length).toBeLessThan(12);
  });
});
