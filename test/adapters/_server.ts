import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";
import type { AdapterCallContext } from "../../src/adapters/adapter.js";

/** One request as the test server received it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  remotePort: number | undefined;
}

export interface TestServer {
  url: string;
  requests: ReceivedRequest[];
}

/** A real HTTP server on 127.0.0.1 (a free port) that records each request; closed when the test ends. */
export async function startTestServer(
  handle: (request: ReceivedRequest, response: ServerResponse) => void,
): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const received = {
        method: incoming.method ?? "",
        url: incoming.url ?? "",
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        remotePort: incoming.socket.remotePort,
      };
      requests.push(received);
      handle(received, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

/** The context of one plain service call. */
export function callContext(signal: AbortSignal = new AbortController().signal): AdapterCallContext {
  return { system: "core", formulaVariable: "core_call", sridx: null, signal };
}
