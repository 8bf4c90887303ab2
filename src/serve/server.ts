import {
  createServer,
  type IncomingMessage,
  type ServerResponse as NodeResponse,
  STATUS_CODES,
} from "node:http";

import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { listenError } from "../listen-error.js";
import { type Batch, createBatch } from "./batch.js";
import { type Connections, trackConnections } from "./connections.js";
import type { HandledResponse, ServeRequest } from "./context.js";
import { createProblem, hasNoBody, type LogError, problemFor, problemResponse } from "./problem.js";
import { parseRequestTarget } from "./target.js";

export interface StartServerOptions {
  host: string;
  port: number;
  bodyLimitBytes: number;
  /** A request's headers must arrive within this (default 10 s), the whole request within `requestTimeoutMs`: else 408. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * Open connections at most (default 512): one more closes the connection idle the longest, or is
   * answered 503 when every other one is answering a request.
   */
  maxConnections?: number;
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
// How often Node looks for requests past their time-outs: their 408 comes within this of the time-out.
const timeoutCheckMs = 500;
// How long a connection serve closes after a problem of its own may stay for its client to read it.
const lingerMs = 1000;

/** serve's only node:http: reads each request within the limits, hands it to the handler, writes the answer. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const answers = createAnswerQueue();
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 10_000, requestTimeout);
  // The request being handled on each socket: an error of its connection is answered on its response, once.
  const handling = new WeakMap<Duplex, { request: IncomingMessage; response: NodeResponse }>();
  const onRequest = (request: IncomingMessage, response: NodeResponse) => {
    inFlight++;
    const started = performance.now();
    handling.set(request.socket, { request, response });
    response.once("close", () => {
      if (handling.get(request.socket)?.response === response) handling.delete(request.socket);
    });
    serve(request, response, edge)
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
  };
  const server = createServer(
    {
      maxHeaderSize,
      // A connection between requests is waiting for the next one's headers: it gets no longer than they may take.
      keepAliveTimeout: Math.min(5000, headersTimeout),
      // A request without Host gets serve's own 400 problem, not Node's bare one.
      requireHostHeader: false,
      headersTimeout,
      requestTimeout,
      connectionsCheckingInterval: timeoutCheckMs,
    },
    onRequest,
  );
  const connections = trackConnections(server, options.maxConnections ?? 512, (socket) => {
    const detail = "every connection serve may hold is answering a request; try again";
    if (answerRaw(socket, 503, detail, { "retry-after": "1" })) options.log("- - 503 0 ms");
  });
  // `Expect: 100-continue`: a body declared over the limit gets its 413 before the client sends it.
  const edge: Edge = { options, answers, connections };
  server.on("checkContinue", (request: IncomingMessage, response: NodeResponse) => {
    if (Number(request.headers["content-length"] ?? 0) <= options.bodyLimitBytes) {
      response.writeContinue();
      onRequest(request, response);
      return;
    }
    const path = parseRequestTarget(request.url ?? "/")?.pathname ?? "-";
    sendProblem(response, createProblem(413, `the body is larger than ${options.bodyLimitBytes} bytes`));
    options.log(`${request.method} ${path} 413 0 ms`);
  });
  server.on("connect", (_request: IncomingMessage, socket: Duplex) => {
    const status = answerRaw(socket, 405, "serve answers no CONNECT: it is not a proxy");
    if (status) options.log(`CONNECT - ${status} 0 ms`);
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const { status, detail } = unparsedProblem(error);
    const current = handling.get(socket);
    // A request still arriving has its response: the error is answered there, or, once that has begun,
    // the connection ends; never two responses to one request. Node's parser stopped, so the request
    // hears of it only here: it is ended, and its handler with it. A request that arrived whole (the
    // error is a pipelined one's) keeps its own answer, and the connection closes after it.
    if (current?.request.complete) {
      current.response.once("finish", () => socket.destroy());
      return;
    }
    if (current) {
      const { request, response } = current;
      if (response.headersSent || error.code === "ECONNRESET") socket.destroy();
      else {
        sendProblem(response, createProblem(status, detail));
        options.log(`- - ${status} 0 ms`);
      }
      request.destroy();
      return;
    }
    const sent = error.code === "ECONNRESET" ? undefined : answerRaw(socket, status, detail);
    // Its method and path could not be read.
    if (sent) options.log(`- - ${sent} 0 ms`);
  });
  await new Promise<void>((resolve, reject) => {
    // A port in use or a host that is not this machine's is the user's to fix, not a crash.
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(listenError("bass serve", options.host, options.port, error)),
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

/** What every request on serve's server is read and answered with, made once. */
interface Edge {
  options: StartServerOptions;
  answers: Batch<Answer>;
  connections: Connections;
}

async function serve(request: IncomingMessage, response: NodeResponse, edge: Edge): Promise<HandledResponse> {
  const { options, answers } = edge;
  const target = request.url ?? "/";
  const body = await readBody(request, options.bodyLimitBytes);
  // From here its connection answers a request, and is closed for no newcomer until the answer is done.
  response.once("close", edge.connections.answering(request.socket));
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
          remoteAddress: request.socket.remoteAddress,
        });
  // Answered already, by an error of its connection (a time-out, a broken body): nothing more to send.
  if (response.headersSent || response.destroyed) return handled;
  if (handled.stream) {
    openStream(response, handled, handled.stream);
    return handled;
  }
  const payload = handled.body;
  // A text body goes out as text: Node then sends the head and the body in one write.
  const length = typeof payload === "string" ? Buffer.byteLength(payload) : payload.byteLength;
  const headers: Record<string, string> = {};
  for (const name in handled.headers) headers[name] = handled.headers[name] as string;
  // A request whose body was cut off is not read to its end: its connection closes after the answer.
  if (body === undefined) headers.connection = "close";
  // A 204 or 304 has no body, and says no length for one (RFC 9110 §8.6).
  if (!hasNoBody(handled.status)) headers["content-length"] = String(length);
  try {
    response.writeHead(handled.status, headers);
  } catch (error) {
    // Headers Node refuses to send (the engine checks a run's own): an answer still goes out, and its log line.
    const problem = problemFor(error, options.logError);
    const text = Buffer.from(problem.body as string);
    response.writeHead(500, { ...problem.headers, "content-length": String(text.byteLength) });
    response.end(text);
    return { ...handled, ...problem };
  }
  answers.add({ response, payload });
  return handled;
}

/** What an event stream may hold unread for a client before serve lets it go. */
const maxStreamBacklog = 1024 * 1024;

/** A response that goes on after its head (server-sent events) until the client or serve ends it. */
function openStream(
  response: NodeResponse,
  handled: HandledResponse,
  stream: NonNullable<HandledResponse["stream"]>,
): void {
  response.writeHead(handled.status, handled.headers);
  response.flushHeaders();
  const close = stream({
    write: (text) => {
      // A client that stops reading would have every later event queued for it: it is let go instead,
      // and reconnects when it reads again.
      if (response.writableLength > maxStreamBacklog) response.destroy();
      else response.write(text);
    },
    end: () => response.end(),
  });
  response.once("close", close);
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

/** The whole body, or undefined once it is larger than the limit (docs/reference.md#serve: no unbounded memory from a body). */
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
    // Ended before its body did (a client gone, a broken connection): Node does not always say so with an error.
    request.on("close", () => {
      if (!request.complete) reject(new Error("the request ended before its body"));
    });
  });
}

/** A problem on a request's own response, closing its connection: what follows on it cannot be read. */
function sendProblem(response: NodeResponse, problem: ReturnType<typeof createProblem>): void {
  const { headers, body } = problemResponse(problem);
  response.writeHead(problem.status, {
    ...headers,
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  });
  response.end(body);
}

/**
 * What a request Node's parser refused before bass saw it gets (a request line or header that is not
 * HTTP, headers over the size limit, a body cut short or broken, a time-out): a problem like every other
 * error, instead of Node's bare 400, 408 or 431.
 */
function unparsedProblem(error: NodeJS.ErrnoException): { status: number; detail: string } {
  if (error.code === "HPE_HEADER_OVERFLOW")
    return { status: 431, detail: `the request's headers are larger than ${maxHeaderSize} bytes` };
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT")
    return { status: 408, detail: "the request did not arrive in time; send it again, whole" };
  return { status: 400, detail: "the request is not valid HTTP/1.1 and cannot be read" };
}

/**
 * Writes a problem straight to a socket that has no response object (Node never made a request of what
 * it read) and closes it, without waiting for a client that does not read: a socket half closed would stay
 * open for as long as its client likes. Returns the status sent, or nothing to a client that has gone.
 */
function answerRaw(
  socket: Duplex,
  status: number,
  detail: string,
  extra: Record<string, string> = {},
): number | undefined {
  if (!socket.writable) {
    socket.destroy();
    return undefined;
  }
  const { headers, body } = problemResponse(createProblem(status, detail), extra);
  const head = Object.entries({
    ...headers,
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
  const linger = setTimeout(() => socket.destroy(), lingerMs).unref();
  socket.once("close", () => clearTimeout(linger));
  return status;
}
