import { type MessagePort, type ResourceLimits, type Transferable, Worker } from "node:worker_threads";

/**
 * What goes to a worker thread and back, a batch per turn of the event loop: `[id, message]` pairs out,
 * `[id, ok, answer]` triples back (`ok` false: the answer could not be sent, and `answer` says why). One
 * message per turn costs each side one wake-up however many runs it carries. A worker that asks to be
 * replaced sends a text instead, saying why (see `answerBatches`).
 */
export type Batch = unknown[];

export interface ThreadPoolOptions {
  /** The worker's module: it answers each batch's messages with `answerBatches` (see below). */
  filename: string;
  workerData: unknown;
  size: number;
  /** Messages a worker holds at once; more wait in the pool's queue. */
  perThread: number;
  resourceLimits?: ResourceLimits | undefined;
  /** A worker that ended while it held no message (each held message is rejected with its error instead). */
  onIdleError?: ((error: unknown) => void) | undefined;
  /** A worker ended: it is replaced, unless the pool is closing. */
  onExit?: (() => void) | undefined;
  /** A worker that should get no message while another can take it (one a long cell holds). */
  avoid?: ((worker: Worker) => boolean) | undefined;
  /** A worker asked to be replaced, saying why: it takes no more messages, and ends once it answered those. */
  onRetire?: ((reason: string) => void) | undefined;
}

/** Worker threads that answer messages; a worker that ends rejects what it held and is replaced. */
export interface ThreadPool {
  /** Sends a message to the least busy worker and resolves with its answer. */
  run(message: unknown, transferList?: readonly Transferable[]): Promise<unknown>;
  /** The workers running now. */
  readonly threads: Worker[];
  close(): Promise<void>;
}

interface Pending {
  resolve(answer: unknown): void;
  reject(error: unknown): void;
}

interface Outgoing {
  id: number;
  message: unknown;
  transfers: readonly Transferable[];
}

interface Thread {
  worker: Worker;
  held: Map<number, Pending>;
  /** The messages gathered this turn. */
  out: Outgoing[];
  /** It asked to be replaced: its replacement has started, and it ends once it holds nothing. */
  retiring: boolean;
}

/** How long the pool waits before it starts a worker again after one ended before it was up, at most. */
const longestRestartMs = 5000;

export function createThreadPool(options: ThreadPoolOptions): ThreadPool {
  const threads: Thread[] = [];
  const queue: (Outgoing & { pending: Pending })[] = [];
  let nextId = 0;
  let closing = false;
  let flushing = false;

  const flush = () => {
    flushing = false;
    for (const thread of threads) {
      if (thread.out.length === 0) continue;
      post(thread, thread.out);
      thread.out = [];
    }
  };
  // A batch that cannot be sent (a message that does not clone) goes a message at a time: only the one
  // that does not clone fails.
  const post = (thread: Thread, out: readonly Outgoing[]) => {
    try {
      thread.worker.postMessage(
        out.flatMap(({ id, message }) => [id, message]),
        out.flatMap(({ transfers }) => transfers),
      );
    } catch (error) {
      if (out.length > 1) for (const one of out) post(thread, [one]);
      else
        for (const { id } of out) {
          thread.held.get(id)?.reject(error);
          thread.held.delete(id);
        }
    }
  };
  const send = (
    thread: Thread,
    id: number,
    message: unknown,
    transfers: readonly Transferable[],
    pending: Pending,
  ) => {
    thread.held.set(id, pending);
    thread.out.push({ id, message, transfers });
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
  };
  const leastBusy = () => {
    let best: Thread | undefined;
    let bestAvoided = false;
    for (const thread of threads) {
      if (thread.retiring || thread.held.size >= options.perThread) continue;
      const avoided = options.avoid?.(thread.worker) ?? false;
      if (
        !best ||
        (bestAvoided && !avoided) ||
        (avoided === bestAvoided && thread.held.size < best.held.size)
      ) {
        best = thread;
        bestAvoided = avoided;
      }
    }
    return best;
  };
  const drainQueue = () => {
    for (let thread = leastBusy(); thread && queue.length; thread = leastBusy()) {
      const next = queue.shift();
      if (next) send(thread, next.id, next.message, next.transfers, next.pending);
    }
  };

  // Workers that ended before they were up, in a row: the next start waits longer each time.
  let failedStarts = 0;
  const start = (): void => {
    const worker = new Worker(options.filename, {
      workerData: options.workerData,
      resourceLimits: options.resourceLimits,
    });
    const thread: Thread = { worker, held: new Map(), out: [], retiring: false };
    threads.push(thread);
    const endIfRetired = () => {
      if (thread.retiring && thread.held.size === 0) void worker.terminate();
    };
    // Up once its module has loaded and it listens: its first batch, empty, says so.
    let up = false;
    // A text asks to retire: the worker holds too much, and a replacement starts now.
    const retire = (why: string) => {
      if (thread.retiring || closing) return;
      thread.retiring = true;
      options.onRetire?.(why);
      start();
      endIfRetired();
    };
    // A batch: id, ok, value for each task the worker answered.
    const settle = (batch: Batch) => {
      for (let at = 0; at < batch.length; at += 3) {
        const id = batch[at] as number;
        const pending = thread.held.get(id);
        thread.held.delete(id);
        if (batch[at + 1]) pending?.resolve(batch[at + 2]);
        else pending?.reject(new Error(String(batch[at + 2])));
      }
    };
    worker.on("message", (batch: Batch | string) => {
      if (typeof batch === "string") return retire(batch);
      if (!up) {
        up = true;
        failedStarts = 0;
      }
      settle(batch);
      endIfRetired();
      drainQueue();
    });
    let failure: unknown;
    worker.on("error", (error) => {
      failure = error;
    });
    // Its place is taken: at once for a worker that had come up, later for one that never did.
    const replace = (error: unknown) => {
      if (up) {
        start();
        drainQueue();
        return;
      }
      // A worker that cannot start (a broken install, a heap too small to load what it needs) is tried again
      // later, and what waits for one fails now rather than waiting for it.
      for (const waiting of queue.splice(0)) waiting.pending.reject(error);
      const delay = Math.min(100 * 2 ** failedStarts++, longestRestartMs);
      setTimeout(() => closing || start(), delay).unref();
    };
    worker.once("exit", (code) => {
      threads.splice(threads.indexOf(thread), 1);
      const error = failure ?? new Error(`the worker thread exited with code ${code}`);
      if (thread.held.size === 0 && !closing && !thread.retiring) options.onIdleError?.(error);
      for (const pending of thread.held.values()) pending.reject(error);
      thread.held.clear();
      options.onExit?.();
      // A retired worker's replacement started when it asked.
      if (!closing && !thread.retiring) replace(error);
    });
  };
  for (let count = 0; count < options.size; count++) start();

  return {
    run(message, transfers = []) {
      if (closing) return Promise.reject(new Error("the pool is closed"));
      return new Promise((resolve, reject) => {
        const id = nextId++;
        const pending = { resolve, reject };
        const thread = leastBusy();
        if (thread) send(thread, id, message, transfers, pending);
        else queue.push({ id, message, transfers, pending });
      });
    },
    get threads() {
      return threads.map((thread) => thread.worker);
    },
    async close() {
      closing = true;
      const error = new Error("the pool is closed");
      for (const waiting of queue.splice(0)) waiting.pending.reject(error);
      await Promise.all(threads.map((thread) => thread.worker.terminate()));
    },
  };
}

/** What a worker's side of the pool can ask of it. */
export interface BatchAnswerer {
  /**
   * Asks to be replaced, saying why, after the answers given so far: the pool sends no more messages,
   * starts another worker, and ends this one once it has answered what it holds.
   */
  retire(reason: string): void;
}

/**
 * A worker's side of the pool, called once its module is ready: answers each message of the batches that
 * come on `port` with `answer`, and sends the answers back a batch per turn. `answer` gives its failures as
 * data: a rejection ends the worker.
 */
export function answerBatches(
  port: MessagePort,
  answer: (message: unknown) => Promise<unknown>,
): BatchAnswerer {
  let out: Batch = [];
  let flushing = false;
  const flush = () => {
    flushing = false;
    const batch = out;
    out = [];
    try {
      port.postMessage(batch);
    } catch {
      // An answer that does not clone fails alone, saying why; the others go as they are.
      for (let at = 0; at < batch.length; at += 3) {
        try {
          port.postMessage(batch.slice(at, at + 3));
        } catch (error) {
          port.postMessage([batch[at], false, `the answer could not be sent: ${(error as Error).message}`]);
        }
      }
    }
  };
  const reply = (id: unknown, value: unknown) => {
    out.push(id, true, value);
    if (!flushing) {
      flushing = true;
      setImmediate(flush);
    }
  };
  port.on("message", (batch: Batch) => {
    for (let at = 0; at < batch.length; at += 2) {
      const id = batch[at];
      void answer(batch[at + 1]).then((value) => reply(id, value));
    }
  });
  // An empty batch: this worker is up.
  port.postMessage([]);
  let retiring = false;
  return {
    retire(reason) {
      if (retiring) return;
      retiring = true;
      setImmediate(() => port.postMessage(reason));
    },
  };
}
