import { mkdir, readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { BassError, isBassError } from "../errors.js";
import { writeFileAtomic } from "../write-atomic.js";
import { getAccount, listTransactions, openAccount } from "./accounts.js";
import { coreError } from "./core-error.js";
import { createDemoLedger } from "./demo-data.js";
import type { Ledger, LedgerResult } from "./ledger.js";
import { deserializeLedger, serializeLedger } from "./ledger-file.js";
import { createPerson, getPerson } from "./persons.js";
import { transfer } from "./transfers.js";

/** Faults the core injects for tests of callers (SPEC §9). A rate is a share of requests, 0 to 1. */
export interface MockcoreFaults {
  /** Every request waits this long before the core looks at it. */
  latencyMs?: number;
  /** Answer 500 `{ errorCode: "INTERNAL" }` without touching the ledger. */
  errorRate?: number;
  /** Destroy the connection without an answer, after the ledger did its work: the change stands, the answer is lost. */
  resetRate?: number;
  /** Answer 200 with a body that is not JSON, also after the ledger did its work. */
  malformedRate?: number;
  /** Draws in [0, 1) for the rates, in the order error, reset, malformed (default `Math.random`). */
  random?: () => number;
}

export interface StartMockcoreOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) takes any free port. */
  port?: number;
  /** The ledger's file: read at start (the demo data when it does not exist), rewritten atomically after each change. */
  dataFile?: string;
  faults?: MockcoreFaults;
  clock?: () => Date;
  /** Larger request bodies get 413 (default 1 MiB). */
  bodyLimitBytes?: number;
}

export interface Mockcore {
  /** `http://host:port`, without a trailing slash. */
  url: string;
  /** The live ledger, for tests to look at or set up. */
  ledger: Ledger;
  /** Stops accepting, lets open requests finish and waits until the data file holds every change. */
  close(): Promise<void>;
}

interface Answer extends LedgerResult {
  headers?: Record<string, string>;
}

interface Request {
  body: unknown;
  query: URLSearchParams;
  idempotencyKey: string | undefined;
}

interface Route {
  method: "GET" | "POST";
  path: RegExp;
  run(ledger: Ledger, params: string[], request: Request): LedgerResult;
}

const routes: Route[] = [
  { method: "POST", path: /^\/core\/v1\/persons$/, run: (ledger, _, { body }) => createPerson(ledger, body) },
  {
    method: "GET",
    path: /^\/core\/v1\/persons\/([^/]+)$/,
    run: (ledger, [id = ""]) => getPerson(ledger, id),
  },
  { method: "POST", path: /^\/core\/v1\/accounts$/, run: (ledger, _, { body }) => openAccount(ledger, body) },
  {
    method: "GET",
    path: /^\/core\/v1\/accounts\/([^/]+)$/,
    run: (ledger, [n = ""]) => getAccount(ledger, n),
  },
  {
    method: "GET",
    path: /^\/core\/v1\/accounts\/([^/]+)\/transactions$/,
    run: (ledger, [n = ""], { query }) =>
      listTransactions(ledger, n, {
        fromDate: query.get("fromDate") ?? undefined,
        toDate: query.get("toDate") ?? undefined,
        limit: query.get("limit") ?? undefined,
        offset: query.get("offset") ?? undefined,
      }),
  },
  {
    method: "POST",
    path: /^\/core\/v1\/transfers$/,
    run: (ledger, _, { body, idempotencyKey }) => transfer(ledger, body, idempotencyKey),
  },
];

/** Starts the mock core's HTTP face on `node:http` (SPEC §9) and resolves once it listens. */
export async function startMockcore(options: StartMockcoreOptions = {}): Promise<Mockcore> {
  const { host = "127.0.0.1", port = 0, dataFile, faults = {}, bodyLimitBytes = 1024 * 1024 } = options;
  checkFaults(faults);
  const clock = options.clock ?? (() => new Date());
  const loaded = dataFile
    ? await loadLedger(dataFile, clock)
    : { ledger: createDemoLedger(clock), fresh: false };
  const { ledger } = loaded;
  const saver = dataFile ? createSaver(dataFile, ledger) : undefined;
  if (saver && loaded.fresh) await saver.save();

  const random = faults.random ?? Math.random;
  const roll = (rate = 0) => rate > 0 && random() < rate;
  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request, bodyLimitBytes);
    if (faults.latencyMs) await new Promise((resolve) => setTimeout(resolve, faults.latencyMs));
    if (roll(faults.errorRate))
      return send(response, coreError(500, "INTERNAL", "injected fault: internal error"));
    const answer = await respond(request, body);
    if (roll(faults.resetRate)) {
      request.socket.destroy();
      return;
    }
    if (roll(faults.malformedRate)) {
      const text = JSON.stringify(answer.body);
      return send(response, { status: 200, body: answer.body }, text.slice(0, Math.ceil(text.length / 2)));
    }
    send(response, answer);
  }

  async function respond(request: IncomingMessage, body: Buffer | undefined): Promise<Answer> {
    if (body === undefined)
      return coreError(413, "PAYLOAD_TOO_LARGE", `the body is larger than ${bodyLimitBytes} bytes`);
    const url = new URL(request.url ?? "/", "http://mockcore");
    const matching = routes.filter((route) => route.path.test(url.pathname));
    const route = matching.find((candidate) => candidate.method === request.method);
    if (!route) {
      if (matching.length === 0)
        return coreError(404, "NOT_FOUND", `no route ${request.method} ${url.pathname}`);
      const allow = matching.map((candidate) => candidate.method).join(", ");
      return {
        ...coreError(405, "METHOD_NOT_ALLOWED", `${url.pathname} answers ${allow}`),
        headers: { allow },
      };
    }
    let params: string[];
    try {
      params = (route.path.exec(url.pathname) ?? []).slice(1).map(decodeURIComponent);
    } catch {
      return coreError(400, "INVALID_REQUEST", "the path is not valid percent-encoding");
    }
    let parsed: unknown;
    if (route.method === "POST") {
      try {
        parsed = body.length === 0 ? undefined : JSON.parse(body.toString("utf8"));
      } catch {
        return coreError(400, "INVALID_REQUEST", "the body is not JSON");
      }
    }
    const key = request.headers["x-idempotency-key"];
    const revision = ledger.state.revision;
    // Synchronous from the balance check to the posting: no other request can run in between.
    const answer = route.run(ledger, params, {
      body: parsed,
      query: url.searchParams,
      idempotencyKey: Array.isArray(key) ? key.join(", ") : key,
    });
    if (saver && ledger.state.revision !== revision) {
      try {
        await saver.save();
      } catch (error) {
        return coreError(
          500,
          "INTERNAL",
          `the change is made but the data file could not be written: ${(error as Error).message}`,
        );
      }
    }
    return answer;
  }

  await listen(server, port, host);
  const address = server.address() as AddressInfo;
  const hostname = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostname}:${address.port}`,
    ledger,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }).then(() => saver?.flush());
      return closing;
    },
  };
}

function send(response: ServerResponse, answer: Answer, text = JSON.stringify(answer.body)): void {
  response.writeHead(answer.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...answer.headers,
  });
  response.end(text);
}

/** The whole body, or `undefined` once it passes `limit` (the rest is read and dropped, so the answer can be sent). */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.on("end", () => resolve(size <= limit ? Buffer.concat(chunks) : undefined));
    request.on("error", reject);
  });
}

function listen(server: ReturnType<typeof createServer>, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) =>
      reject(
        new BassError(
          "USAGE",
          `the mock core cannot listen on ${host}:${port}: ${error.code ?? error.message}`,
        ),
      );
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      resolve();
    });
  });
}

function checkFaults(faults: MockcoreFaults): void {
  for (const name of ["errorRate", "resetRate", "malformedRate"] as const) {
    const rate = faults[name];
    if (rate !== undefined && !(rate >= 0 && rate <= 1))
      throw new BassError("USAGE", `the mock core's ${name} must be from 0 to 1`);
  }
  if (faults.latencyMs !== undefined && !(faults.latencyMs >= 0))
    throw new BassError("USAGE", "the mock core's latencyMs must be 0 or more");
}

/** The ledger in `file`, or the demo data (`fresh`) when there is no such file yet. */
async function loadLedger(file: string, clock: () => Date): Promise<{ ledger: Ledger; fresh: boolean }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { ledger: createDemoLedger(clock), fresh: true };
    throw new BassError(
      "FILE_UNREADABLE",
      `cannot read the mock core's data file ${file}: ${(error as Error).message}`,
    );
  }
  try {
    return { ledger: deserializeLedger(text, { clock }), fresh: false };
  } catch (error) {
    if (!isBassError(error)) throw error;
    throw new BassError("FILE_UNREADABLE", `${file}: ${error.message}`);
  }
}

/**
 * Writes the ledger to `file`, one write at a time. A change made while a write runs queues one more
 * write, which every change up to its start shares; `save` resolves once the change is on disk.
 */
function createSaver(file: string, ledger: Ledger): { save(): Promise<void>; flush(): Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  return {
    save() {
      if (queued) return queued;
      const write = chain.then(() => {
        queued = undefined;
        return writeDataFile(file, serializeLedger(ledger));
      });
      queued = write;
      chain = write.catch(() => {});
      return write;
    },
    flush: () => chain,
  };
}

/** The data file, whole or absent; its folder is made on the way. */
async function writeDataFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, text);
}
