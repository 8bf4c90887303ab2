import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import type { Dispatcher } from "undici";
import { describe, expect, it, onTestFinished } from "vitest";
import { createHttpAdapter } from "../../src/adapters/http.js";
import type { SystemConfig } from "../../src/definition/types.js";
import { isBassError } from "../../src/errors.js";
import { callContext, startTestServer } from "./_server.js";

function adapterFor(baseUrl: string, config: Partial<SystemConfig> = {}) {
  const adapter = createHttpAdapter({
    name: "core",
    config: { adapter: "http", base_url: baseUrl, ...config },
  });
  onTestFinished(() => adapter.close());
  return adapter;
}

const call = (payload: unknown, signal?: AbortSignal) => ({
  request: { service_name: "s", payload },
  signal,
});

/** A server that answers every request with this status, content type and body. */
function answering(status: number, contentType: string | undefined, body: string) {
  return startTestServer((_request, response) => {
    response.writeHead(status, contentType ? { "content-type": contentType } : {});
    response.end(body);
  });
}

async function execute(
  baseUrl: string,
  payload: unknown,
  config: Partial<SystemConfig> = {},
  signal?: AbortSignal,
) {
  const { request } = call(payload, signal);
  return adapterFor(baseUrl, config).execute(request, callContext(signal));
}

describe("http adapter: requests", () => {
  it("sends an object body as JSON and parses a JSON answer", async () => {
    const server = await startTestServer((request, response) => {
      response.writeHead(201, { "content-type": "application/json; charset=utf-8" });
      response.end(JSON.stringify({ personId: "P-1", seen: JSON.parse(request.body) }));
    });
    const response = await execute(server.url, {
      service_path: "/core/v1/persons",
      method: "post",
      body: { firstName: "Ann", tags: ["a"] },
    });
    expect(server.requests[0]).toMatchObject({ method: "POST", url: "/core/v1/persons" });
    expect(server.requests[0]?.headers["content-type"]).toBe("application/json");
    expect(response).toEqual({
      success: true,
      status: 201,
      payload: { personId: "P-1", seen: { firstName: "Ann", tags: ["a"] } },
      messages: [],
    });
  });

  it("sends a string body and a byte body as they are", async () => {
    const server = await answering(200, "text/plain", "ok");
    const string = await execute(server.url, {
      service_path: "/a",
      method: "PUT",
      body: "<x>1</x>",
      headers: { "Content-Type": "application/xml" },
    });
    const bytes = await execute(server.url, {
      service_path: "/b",
      method: "POST",
      body: new Uint8Array([104, 105]),
    });
    expect([string.success, bytes.success]).toEqual([true, true]);
    expect(server.requests.map((request) => [request.body, request.headers["content-type"]])).toEqual([
      ["<x>1</x>", "application/xml"],
      ["hi", undefined],
    ]);
  });

  it.each([
    ["http://HOST/api/v1/", "/items", "/api/v1/items"],
    ["http://HOST/api/v1", "items", "/api/v1/items"],
    ["http://HOST", "/items", "/items"],
    ["http://HOST/", "//items", "/items"],
  ])("joins base_url %s and service_path %s into %s", async (base, servicePath, expected) => {
    const server = await answering(204, undefined, "");
    await execute(base.replace("http://HOST", server.url), { service_path: servicePath, method: "GET" });
    expect(server.requests[0]?.url).toBe(expected);
  });

  it("puts params in the query string, an array as repeated keys", async () => {
    const server = await answering(204, undefined, "");
    await execute(`${server.url}/api`, {
      service_path: "/accounts/1/transactions?fromDate=2026-01-01",
      method: "GET",
      params: { limit: 10, status: ["posted", "held"], skip: null, q: "a b&c" },
    });
    expect(server.requests[0]?.url).toBe(
      "/api/accounts/1/transactions?fromDate=2026-01-01&limit=10&status=posted&status=held&q=a+b%26c",
    );
  });

  it("merges payload headers over the system's, names case-insensitive, and never answers with them", async () => {
    const server = await answering(200, "application/json", '{"ok":true}');
    const response = await execute(
      server.url,
      { service_path: "/x", method: "GET", headers: { "x-tenant": "payload", "X-Extra": 7 } },
      { headers: { Authorization: "Bearer s3cr3t-token", "X-Tenant": "system" } },
    );
    const headers = server.requests[0]?.headers;
    expect([headers?.authorization, headers?.["x-tenant"], headers?.["x-extra"]]).toEqual([
      "Bearer s3cr3t-token",
      "payload",
      "7",
    ]);
    expect(JSON.stringify(response)).not.toContain("s3cr3t");
  });

  it("reuses kept-alive connections across the calls of a system", async () => {
    const server = await answering(200, "text/plain", "ok");
    const adapter = adapterFor(server.url);
    for (let i = 0; i < 6; i++)
      await adapter.execute(call({ service_path: "/x", method: "GET" }).request, callContext());
    expect(server.requests).toHaveLength(6);
    // undici may open a second socket while the first is being released; a new connection per call would give 6.
    expect(new Set(server.requests.map((request) => request.remotePort)).size).toBeLessThanOrEqual(2);
  });

  it.each([
    [{ method: "GET" }, "service_path"],
    [{ service_path: "/x" }, "method"],
    [{ service_path: "/x", method: 5 }, "method"],
    ["GET /x", "payload object"],
    [{ service_path: "/x", method: "GET", params: "a=1" }, "params"],
    [{ service_path: "/x", method: "GET", headers: { a: { b: 1 } } }, "header a"],
  ])("refuses the payload %j without a request", async (payload, problem) => {
    const server = await answering(200, "text/plain", "ok");
    const response = await execute(server.url, payload);
    expect(response.success).toBe(false);
    expect(response.messages.join(" ")).toContain(problem);
    expect(response.messages[0]).toMatch(/^core: /);
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [undefined, "has no base_url"],
    ["mockcore:", "not an http"],
    ["ftp://example.com", "not an http"],
  ])("will not be created with base_url %s", (baseUrl, problem) => {
    const create = () => createHttpAdapter({ name: "core", config: { adapter: "http", base_url: baseUrl } });
    expect(create).toThrow(problem);
    try {
      create();
    } catch (error) {
      expect(isBassError(error) && error.code).toBe("ADAPTER_UNAVAILABLE");
    }
  });
});

describe("http adapter: answers", () => {
  it.each([
    ["application/xml", { person: { "@_id": "7", name: "Ann", balance: "0012.50" } }],
    ["text/xml; charset=utf-8", { person: { "@_id": "7", name: "Ann", balance: "0012.50" } }],
    ["application/vnd.core+xml", { person: { "@_id": "7", name: "Ann", balance: "0012.50" } }],
    ["text/plain", '<person id="7"><name>Ann</name><balance>0012.50</balance></person>'],
  ])("reads a %s body (XML values stay strings)", async (type, payload) => {
    const server = await answering(
      200,
      type,
      '<person id="7"><name>Ann</name><balance>0012.50</balance></person>',
    );
    const response = await execute(server.url, { service_path: "/p", method: "GET" });
    expect(response).toEqual({ success: true, status: 200, payload, messages: [] });
  });

  it.each([
    ["application/hal+json", '{"a":1}', { a: 1 }],
    [undefined, "plain words", "plain words"],
    ["application/json", "", null],
    ["application/xml", "  ", null],
    ["text/plain", "", null],
  ])("reads a %s body %j as %j", async (type, body, payload) => {
    const server = await answering(200, type, body);
    const response = await execute(server.url, { service_path: "/p", method: "GET" });
    expect(response).toMatchObject({ success: true, payload });
  });

  it("answers null for a 204 and for a HEAD", async () => {
    const server = await answering(204, undefined, "");
    const noContent = await execute(server.url, { service_path: "/p", method: "DELETE" });
    const head = await execute((await answering(200, "application/json", '{"a":1}')).url, {
      service_path: "/p",
      method: "HEAD",
    });
    expect([noContent, head]).toEqual([
      { success: true, status: 204, payload: null, messages: [] },
      { success: true, status: 200, payload: null, messages: [] },
    ]);
  });

  it.each(["message", "error", "errorMessage", "detail", "title"])(
    "puts the status line and a JSON body's %s in the messages",
    async (field) => {
      const server = await answering(
        422,
        "application/json",
        JSON.stringify({ errorCode: "E1", [field]: "insufficient funds" }),
      );
      const response = await execute(server.url, { service_path: "/t", method: "POST", body: {} });
      expect(response).toEqual({
        success: false,
        status: 422,
        payload: { errorCode: "E1", [field]: "insufficient funds" },
        messages: ["422 Unprocessable Entity", "insufficient funds"],
      });
    },
  );

  it("reads a problem+json body and a nested error message", async () => {
    const problem = await answering(
      409,
      "application/problem+json",
      '{"title":"Conflict","detail":"account closed"}',
    );
    const nested = await answering(
      400,
      "application/json",
      '{"error":{"code":"BAD","message":"bad amount"}}',
    );
    const [a, b] = [
      await execute(problem.url, { service_path: "/t", method: "POST" }),
      await execute(nested.url, { service_path: "/t", method: "POST" }),
    ];
    expect(a.messages).toEqual(["409 Conflict", "account closed", "Conflict"]);
    expect(b.messages).toEqual(["400 Bad Request", "bad amount"]);
  });

  it("puts a text error body in the messages", async () => {
    const server = await answering(503, "text/plain", "database down\n");
    const response = await execute(server.url, { service_path: "/t", method: "GET" });
    expect(response).toEqual({
      success: false,
      status: 503,
      payload: "database down\n",
      messages: ["503 Service Unavailable", "database down"],
    });
  });

  it("answers only the status line for an error without a body", async () => {
    const server = await answering(404, "application/json", "");
    const response = await execute(server.url, { service_path: "/t", method: "GET" });
    expect(response).toEqual({ success: false, status: 404, payload: null, messages: ["404 Not Found"] });
  });

  it.each([
    ["application/json", '{"a":', "not valid JSON"],
    ["application/xml", "<a><b></a>", "not valid XML"],
    ["text/xml", "just words", "not valid XML"],
  ])("fails a %s body that does not parse, keeping the raw text", async (type, body, problem) => {
    const server = await answering(200, type, body);
    const response = await execute(server.url, { service_path: "/t", method: "GET" });
    expect(response).toMatchObject({ success: false, status: 200, payload: body });
    expect(response.messages).toHaveLength(1);
    expect(response.messages[0]).toContain(problem);
  });

  it("keeps at most 64 KiB of a body that does not parse", async () => {
    const server = await answering(502, "application/json", `{${"é".repeat(50_000)}`);
    const response = await execute(server.url, { service_path: "/t", method: "GET" });
    expect(response.success).toBe(false);
    expect(Buffer.byteLength(response.payload as string)).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.byteLength(response.payload as string)).toBeGreaterThan(64 * 1024 - 4);
    expect(response.payload as string).toMatch(/^\{é+$/);
    expect(response.messages[0]).toBe("502 Bad Gateway");
  });
});

describe("http adapter: transport failures", () => {
  const failed = (response: { success: boolean; payload: unknown; messages: string[] }) => {
    expect(response.success).toBe(false);
    expect(response.payload).toBeNull();
    expect(response.messages).toHaveLength(1);
    return response.messages[0];
  };

  it("fails a refused connection with a message naming the system", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const response = await execute(`http://127.0.0.1:${port}`, { service_path: "/t", method: "POST" });
    expect(failed(response)).toMatch(/^core: POST \/t: connection refused/);
  });

  it("fails a connection reset in the middle of the answer", async () => {
    const server = await startTestServer((request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      response.write('{"partial":');
      setTimeout(() => response.socket?.destroy(), 20);
      void request;
    });
    const response = await execute(server.url, { service_path: "/t", method: "GET" });
    expect(failed(response)).toMatch(/^core: GET \/t: connection (closed|reset)/);
  });

  it("times out a server that never answers", async () => {
    const server = await startTestServer(() => {});
    const started = Date.now();
    const response = await execute(
      server.url,
      { service_path: "/slow", method: "GET", params: { a: 1 } },
      {
        timeout_ms: 80,
      },
    );
    expect(failed(response)).toBe(
      "core: GET /slow: no complete answer within 80 ms; the outcome there is unknown",
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("times out a body that stalls after the headers", async () => {
    const server = await startTestServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("half");
    });
    const response = await execute(server.url, { service_path: "/slow", method: "GET" }, { timeout_ms: 80 });
    expect(failed(response)).toContain("no complete answer within 80 ms; the outcome there is unknown");
  });

  it.each([
    [
      "times out",
      { timeout_ms: 40 },
      () => undefined,
      "core: GET /t: no complete answer within 40 ms; the outcome there is unknown",
    ],
    ["stops on the run's abort", { timeout_ms: 5000 }, () => AbortSignal.timeout(40), "aborted"],
  ])(
    "%s while the request waits for a connection, and cancels it once it gets one",
    async (_, config, runSignal, message) => {
      let handler: Dispatcher.DispatchHandler | undefined;
      // A pool whose connections are all busy: it holds the request and starts it later.
      const dispatcher = {
        dispatch: (_options: unknown, queued: Dispatcher.DispatchHandler) => {
          handler = queued;
          return false;
        },
      } as unknown as Dispatcher;
      const adapter = createHttpAdapter(
        { name: "core", config: { adapter: "http", base_url: "http://core.test", ...config } },
        { dispatcher },
      );
      const response = await adapter.execute(
        { service_name: "s", payload: { service_path: "/t", method: "GET" } },
        callContext(runSignal()),
      );
      expect(response).toEqual({ success: false, payload: null, messages: [message] });
      const aborted: Error[] = [];
      // The connection comes: request()'s handler is told so the way a pool tells it, and cancels at once.
      handler?.onConnect?.((reason) => {
        if (reason) aborted.push(reason);
      });
      expect(aborted).toHaveLength(1);
    },
  );

  it("stops when the run aborts", async () => {
    const server = await startTestServer(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const response = await execute(
      server.url,
      { service_path: "/t", method: "GET" },
      { timeout_ms: 5000 },
      controller.signal,
    );
    expect(response).toEqual({ success: false, payload: null, messages: ["aborted"] });
  });

  it("sends nothing once the run is aborted", async () => {
    const server = await answering(200, "text/plain", "ok");
    const response = await execute(
      server.url,
      { service_path: "/t", method: "GET" },
      {},
      AbortSignal.abort(),
    );
    expect(response.messages).toEqual(["aborted"]);
    expect(server.requests).toHaveLength(0);
  });

  describe("with the run's deadline instead of its signal", () => {
    // The engine gives a deadline: the adapter then never asks for the signal (it would make one).
    const byDeadline = (deadline: number) =>
      Object.defineProperty({ ...callContext(), deadline }, "signal", {
        get: () => {
          throw new Error("the signal was asked for");
        },
      });

    it("stops at the deadline, as aborted and before its own time-out", async () => {
      const server = await startTestServer(() => {});
      const started = performance.now();
      const response = await adapterFor(server.url, { timeout_ms: 5000 }).execute(
        { service_name: "s", payload: { service_path: "/t", method: "GET" } },
        byDeadline(performance.now() + 40),
      );
      expect(response).toEqual({ success: false, payload: null, messages: ["aborted"] });
      expect(performance.now() - started).toBeGreaterThanOrEqual(39);
      expect(server.requests).toHaveLength(1);
    });

    it("sends nothing once the deadline has passed", async () => {
      const server = await answering(200, "text/plain", "ok");
      const response = await adapterFor(server.url).execute(
        { service_name: "s", payload: { service_path: "/t", method: "GET" } },
        byDeadline(performance.now() - 1),
      );
      expect(response.messages).toEqual(["aborted"]);
      expect(server.requests).toHaveLength(0);
    });

    it("keeps its own time-out when that comes first", async () => {
      const server = await startTestServer(() => {});
      const response = await adapterFor(server.url, { timeout_ms: 30 }).execute(
        { service_name: "s", payload: { service_path: "/t", method: "GET" } },
        byDeadline(performance.now() + 5000),
      );
      expect(failed(response)).toBe(
        "core: GET /t: no complete answer within 30 ms; the outcome there is unknown",
      );
    });
  });

  it("fails a host that does not resolve", async () => {
    const response = await execute(
      "http://bass-test.invalid",
      { service_path: "/t", method: "GET" },
      { timeout_ms: 5000 },
    );
    expect(failed(response)).toMatch(
      /^core: GET \/t: (host not found|host lookup failed|no complete answer)/,
    );
  });

  it("fails a header value undici will not send, without a retry", async () => {
    const server = await answering(200, "text/plain", "ok");
    const response = await execute(
      server.url,
      { service_path: "/t", method: "GET", headers: { "x-bad": "a\r\nb" } },
      { retries: { max: 3, backoff_ms: 1 } },
    );
    expect(failed(response)).toContain("core: GET /t: the request cannot be sent");
    expect(server.requests).toHaveLength(0);
  });

  it("fails a CONNECT without sending it", async () => {
    const server = await answering(200, "text/plain", "ok");
    const response = await execute(
      server.url,
      { service_path: "/t", method: "connect" },
      { timeout_ms: 5000 },
    );
    expect(failed(response)).toBe("core: CONNECT /t: the request cannot be sent (invalid method)");
    expect(server.requests).toHaveLength(0);
  });

  it("fails calls after close", async () => {
    const server = await answering(200, "text/plain", "ok");
    const adapter = adapterFor(server.url);
    await adapter.close();
    const response = await adapter.execute(
      call({ service_path: "/t", method: "GET" }).request,
      callContext(),
    );
    expect(failed(response)).toContain("core: GET /t:");
    expect(server.requests).toHaveLength(0);
  });
});

describe("http adapter: response size", () => {
  const limit = 4096;

  function limitedAdapter(baseUrl: string) {
    const adapter = createHttpAdapter(
      { name: "core", config: { adapter: "http", base_url: baseUrl, retries: { max: 2 } } },
      { maxResponseBytes: limit, sleep: async () => {} },
    );
    onTestFinished(() => adapter.close());
    return adapter;
  }

  it.each([
    [limit, true],
    [limit + 1, false],
  ])("reads a body of %i bytes against a limit of 4096: success %s", async (size, success) => {
    const server = await answering(200, "text/plain", "x".repeat(size));
    const response = await limitedAdapter(server.url).execute(
      { service_name: "s", payload: { service_path: "/t", method: "GET" } },
      callContext(),
    );
    expect(response.success).toBe(success);
    if (success) expect(response.payload).toHaveLength(size);
    else
      expect(response).toEqual({
        success: false,
        status: 200,
        payload: null,
        messages: ["core: GET /t: the response body is larger than the limit of 4096 bytes"],
      });
  });

  it("stops reading a streamed body past the limit and closes the connection, without a retry", async () => {
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(16 * 1024, "x");
    let written = 0;
    let closed!: (finished: boolean) => void;
    const serverSaw = new Promise<boolean>((resolve) => {
      closed = resolve;
    });
    const server = await startTestServer((_request, response) => {
      response.on("close", () => closed(response.writableFinished));
      response.writeHead(200, { "content-type": "application/json" });
      // Chunked, with no content-length: only reading tells the size. Waits for drain, as a real stream does.
      const pump = () => {
        while (written < total && !response.destroyed) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once("drain", pump);
        }
        if (written >= total) response.end();
      };
      pump();
    });
    const response = await limitedAdapter(server.url).execute(
      { service_name: "s", payload: { service_path: "/big", method: "GET" } },
      callContext(),
    );
    expect(response).toMatchObject({
      success: false,
      status: 200,
      payload: null,
      messages: ["core: GET /big: the response body is larger than the limit of 4096 bytes"],
    });
    expect(await serverSaw).toBe(false);
    expect(written).toBeLessThan(total / 8);
    expect(server.requests).toHaveLength(1);
  });
});
