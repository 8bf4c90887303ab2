import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { listenError } from "../listen-error.js";
import { createDataFileSaver, loadLedger } from "./data-file.js";
import { createDemoLedger } from "./demo-data.js";
import { createFaultInjector, type MockcoreFaults } from "./faults.js";
import { createMockcoreHandler, type MockcoreAnswer } from "./handler.js";
import type { Ledger } from "./ledger.js";

export type { MockcoreFaults } from "./faults.js";

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
  /** One line per request (method, path, status, duration), as `bass mockcore` prints them. */
  log?: ((line: string) => void) | undefined;
}

export interface Mockcore {
  /** `http://host:port`, without a trailing slash. */
  url: string;
  /** The live ledger, for tests to look at or set up. */
  ledger: Ledger;
  /** Stops accepting, lets open requests finish and waits until the data file holds every change. */
  close(): Promise<void>;
}

/** Starts the mock core's HTTP face on `node:http` (docs/mockcore.md#the-mock-cores-api) and resolves once it listens. */
export async function startMockcore(options: StartMockcoreOptions = {}): Promise<Mockcore> {
  const { host = "127.0.0.1", port = 0, dataFile, faults = {}, bodyLimitBytes = 1024 * 1024 } = options;
  const injectFaults = createFaultInjector(faults);
  const clock = options.clock ?? (() => new Date());
  const loaded = dataFile
    ? await loadLedger(dataFile, clock)
    : { ledger: createDemoLedger(clock), fresh: false };
  const { ledger } = loaded;
  const saver = dataFile ? createDataFileSaver(dataFile, ledger) : undefined;
  if (saver && loaded.fresh) await saver.save();
  const respond = createMockcoreHandler({ ledger, saver, bodyLimitBytes });

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const body = await readBody(request, bodyLimitBytes);
    const delivery = await injectFaults(() => respond(request, body));
    const took = () => `${Math.round(performance.now() - started)} ms`;
    if (delivery === "reset") {
      request.socket.destroy();
      options.log?.(`${request.method} ${request.url} reset ${took()}`);
      return;
    }
    send(response, delivery.answer, delivery.text);
    options.log?.(`${request.method} ${request.url} ${delivery.answer.status} ${took()}`);
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

function send(response: ServerResponse, answer: MockcoreAnswer, text = JSON.stringify(answer.body)): void {
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
    const fail = (error: NodeJS.ErrnoException) => reject(listenError("the mock core", host, port, error));
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      resolve();
    });
  });
}
