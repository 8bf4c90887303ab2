import {
  createServer,
  type IncomingMessage,
  type ServerResponse as NodeResponse,
  STATUS_CODES,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { BassError } from "../errors.js";
import { type Batch, createBatch } from "./batch.js";
import type { HandledResponse, ServeRequest } from "./context.js";
import { createProblem, type LogError, problemFor, problemResponse } from "./problem.js";
import { parseRequestTarget } from "./target.js";

export interface StartServerOptions {
  host: string;
  port: number;
  bodyLimitBytes: number;
  handle(request: ServeRequest): Promise<HandledResponse>;
  /** One line per request: method, path (masked), status, duration, run id. */
  log(line: string): void;
  /** Gets each error serve did not expect before its 500; the caller masks it, as only it knows the secrets. */
  logError: LogError;
}

export interface RunningServer {
  url: string;
  /** Stops accepting, lets requests in progress finish (up to `graceMs`), then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

// Node answers 431 itself to a request whose headers are larger than this.
const maxHeaderSize = 16 * 1024;

/** serve's only node:http: reads each request within the limits, hands it to the handler, writes the answer. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const answers = createAnswerQueue();
  const { logError } = options;
  const server = createServer({ maxHeaderSize, keepAliveTimeout: 5000 }, (request, response) => {
    inFlight++;
    const started = performance.now();
    serve(request, response, options, answers, logError)
      .then((handled) => {
        const run = handled.runId ? ` run ${handled.runId}` : "";
        const replayed = handled.replayed ? " replayed" : "";
        options.log(
          `${request.method} ${handled.logPath} ${handled.status} ${Math.round(performance.now() - started)} ms${run}${replayed}`,
        );
      })
      // A client that went away mid-request: nothing to answer.
      .catch(() => response.destroy())
      .finally(() => {
        if (--inFlight === 0) drained?.();
      });
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const status = answerUnparsed(error, socket);
    // Its method and path could not be read.
    if (status) options.log(`- - ${status} 0 ms`);
  });
  await new Promise<void>((resolve, reject) => {
    // A port in use or a host that is not this machine's is the user's to fix, not a crash.
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new BassError(
          "USAGE",
          `bass serve cannot listen on ${options.host}:${options.port}: ${error.code ?? error.message}`,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    async close(graceMs = 10_000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => (drained = resolve)),
          new Promise((resolve) => setTimeout(resolve, graceMs).unref()),
        ]);
      }
      answers.flush();
      server.closeAllConnections();
      await closed;
    },
  };
}

async function serve(
  request: IncomingMessage,
  response: NodeResponse,
  options: StartServerOptions,
  answers: Batch<Answer>,
  logError: LogError,
): Promise<HandledResponse> {
  const target = request.url ?? "/";
  const body = await readBody(request, options.bodyLimitBytes);
  const handled: HandledResponse =
    body === undefined
      ? {
          ...problemResponse(createProblem(413, `the body is larger than ${options.bodyLimitBytes} bytes`)),
          logPath: parseRequestTarget(target)?.pathname ?? target,
        }
      : await options.handle({
          method: request.method ?? "GET",
          url: target,
          headers: request.headers,
          body,
        });
  const payload = handled.body;
  // A text body goes out as text: Node then sends the head and the body in one write.
  const length = typeof payload === "string" ? Buffer.byteLength(payload) : payload.byteLength;
  const headers: Record<string, string> = {};
  for (const name in handled.headers) headers[name] = handled.headers[name] as string;
  // A request whose body was cut off is not read to its end: its connection closes after the answer.
  if (body === undefined) headers.connection = "close";
  headers["content-length"] = String(length);
  try {
    response.writeHead(handled.status, headers);
  } catch (error) {
    // Headers Node refuses to send (the engine checks a run's own): an answer still goes out, and its log line.
    const problem = problemFor(error, logError);
    const text = Buffer.from(problem.body as string);
    response.writeHead(500, { ...problem.headers, "content-length": String(text.byteLength) });
    response.end(text);
    return { ...handled, ...problem };
  }
  answers.add({ response, payload });
  return handled;
}

interface Answer {
  response: NodeResponse;
  payload: string | Uint8Array;
}

/**
 * The answers of one event-loop turn, written together at its end: a client waiting on several connections
 * is woken once for them, not once per answer, and each wake-up is a costly switch on a busy machine.
 */
function createAnswerQueue(): Batch<Answer> {
  return createBatch((answers) => {
    for (const { response, payload } of answers) {
      try {
        response.end(payload);
      } catch {
        // Outside any request's promise now: one answer that cannot go out must not keep the others back.
        response.destroy();
      }
    }
  });
}

/** The whole body, or undefined once it is larger than the limit (SPEC §12: no unbounded memory from a body). */
function readBody(request: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers["content-length"] ?? 0);
  if (declared > limit) {
    request.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        request.removeAllListeners("data");
        request.resume();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

/**
 * A request Node's parser refused before bass saw it (a request line or header that is not HTTP, headers
 * over the size limit, a body cut short) gets a problem like every other error, instead of Node's bare
 * 400 or 431, and its connection is closed: what follows on it cannot be read. Returns the status sent,
 * if any (none to a client that has gone).
 */
function answerUnparsed(error: NodeJS.ErrnoException, socket: Duplex): number | undefined {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return undefined;
  }
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
  const detail =
    status === 431
      ? `the request's headers are larger than ${maxHeaderSize} bytes`
      : "the request is not valid HTTP/1.1 and cannot be read";
  const { headers, body } = problemResponse(createProblem(status, detail));
  const head = Object.entries({
    ...headers,
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
  return status;
}
