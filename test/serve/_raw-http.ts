import { connect } from "node:net";

/** What came back on a raw connection: nothing (the server closed it unanswered), or one HTTP response. */
export type RawAnswer =
  | { kind: "none" }
  | { kind: "response"; status: number; headers: Map<string, string>; body: Buffer };

export interface SendRawOptions {
  /** Destroy the socket this long after the bytes are written, as a client that goes away mid-request. */
  abortAfterMs?: number;
  /** End the client's side once the bytes are written; Node then aborts a request it has not answered yet. */
  halfClose?: boolean;
  /** How long to wait for the server to answer and close (default 10 s). */
  timeoutMs?: number;
}

/**
 * Writes `bytes` as they are to 127.0.0.1:`port` (no client library checks them) and reads until the server
 * closes the connection. The request should say `Connection: close`.
 */
export async function sendRaw(port: number, bytes: Buffer, options: SendRawOptions = {}): Promise<RawAnswer> {
  return parseRawAnswer(await readRaw(port, bytes, options));
}

/** Writes `bytes` as `sendRaw` does and gives every byte that came back before the server closed the connection. */
export function readRaw(port: number, bytes: Buffer, options: SendRawOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(bytes);
      if (options.halfClose) socket.end();
      if (options.abortAfterMs !== undefined) setTimeout(() => socket.destroy(), options.abortAfterMs);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer and no close within ${options.timeoutMs ?? 10_000} ms`));
    }, options.timeoutMs ?? 10_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A reset by the server is a close without an answer, as is the client's own abort.
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
  });
}

/** One HTTP/1.1 response (Content-Length or chunked body), or `none` for no bytes at all. */
export function parseRawAnswer(raw: Buffer): RawAnswer {
  if (raw.length === 0) return { kind: "none" };
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0)
    throw new Error(`not an HTTP response: ${JSON.stringify(raw.toString("latin1").slice(0, 200))}`);
  const [statusLine = "", ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = raw.subarray(end + 4);
  const length = headers.get("content-length");
  if (length !== undefined) body = body.subarray(0, Number(length));
  else if (headers.get("transfer-encoding") === "chunked") body = dechunk(body);
  return { kind: "response", status, headers, body };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (let count = 0; count < 10_000 && at < data.length; count++) {
    const lineEnd = data.indexOf("\r\n", at);
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
