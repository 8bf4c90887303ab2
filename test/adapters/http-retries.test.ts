import { MockAgent } from "undici";
import { describe, expect, it, onTestFinished } from "vitest";
import { createHttpAdapter } from "../../src/adapters/http.js";
import type { SystemConfig } from "../../src/definition/types.js";
import { callContext } from "./_server.js";

const origin = "https://core.example";

interface Scenario {
  /** The statuses the core answers, one per attempt; the last one repeats. */
  statuses: (number | Error)[];
  retries?: SystemConfig["retries"];
  headers?: Record<string, string>;
  random?: () => number;
  timeoutMs?: number;
  delayMs?: number;
  sleep?: () => Promise<void>;
}

/** An http adapter on a MockAgent whose core answers `statuses` in turn; counts the attempts and records the waits. */
function scenario({
  statuses,
  retries = { max: 3 },
  headers,
  random = () => 0.5,
  timeoutMs,
  delayMs,
  sleep,
}: Scenario) {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  onTestFinished(() => agent.close());
  const core = agent.get(origin);
  for (const [index, status] of statuses.entries()) {
    const interceptor = core.intercept({ path: /.*/, method: /.*/ });
    const last = index === statuses.length - 1;
    const scope =
      status instanceof Error
        ? interceptor.replyWithError(status)
        : interceptor.reply(status, status < 300 ? { ok: true } : { message: `failure ${status}` }, {
            headers: { "content-type": "application/json" },
          });
    if (last) scope.persist();
    if (delayMs) scope.delay(delayMs);
  }
  const waits: number[] = [];
  const adapter = createHttpAdapter(
    {
      name: "core",
      config: { adapter: "http", base_url: `${origin}/api`, retries, headers, timeout_ms: timeoutMs },
    },
    {
      dispatcher: agent,
      random,
      sleep: async (ms) => {
        waits.push(ms);
        await sleep?.();
      },
    },
  );
  const run = (
    method: string,
    payloadHeaders?: Record<string, string>,
    signal?: AbortSignal,
    context = callContext(signal),
  ) =>
    adapter.execute(
      { service_name: "s", payload: { service_path: "/x", method, headers: payloadHeaders } },
      context,
    );
  const seen = () => agent.getCallHistory()?.calls() ?? [];
  return { run, seen, waits };
}

describe("http adapter: retries", () => {
  it("repeats a GET on 503 up to retries.max, with exponential backoff and full jitter", async () => {
    const { run, seen, waits } = scenario({ statuses: [503], retries: { max: 3, backoff_ms: 100 } });
    const response = await run("GET");
    expect(seen()).toHaveLength(4);
    expect(seen().every((request) => request.method === "GET" && request.path === "/api/x")).toBe(true);
    expect(waits).toEqual([50, 100, 200]);
    expect(response).toEqual({
      success: false,
      status: 503,
      payload: { message: "failure 503" },
      messages: ["503 Service Unavailable", "failure 503", "core: 4 attempts were made"],
    });
  });

  it("draws each wait from [0, ceiling) with random()", async () => {
    const draws = [0, 0.999, 0.25];
    const { run, waits } = scenario({ statuses: [502], random: () => draws.shift() ?? 0 });
    await run("GET");
    expect(waits).toEqual([0, 199, 100]);
  });

  it("answers the first success and says how many attempts it took", async () => {
    const { run, seen } = scenario({ statuses: [503, 504, 200] });
    const response = await run("GET");
    expect(seen()).toHaveLength(3);
    expect(response).toEqual({
      success: true,
      status: 200,
      payload: { ok: true },
      messages: ["core: 3 attempts were made"],
    });
  });

  it("makes one attempt when retries.max is not set", async () => {
    const { run, seen, waits } = scenario({ statuses: [503], retries: {} });
    const response = await run("GET");
    expect([seen().length, waits.length]).toEqual([1, 0]);
    expect(response.messages).toEqual(["503 Service Unavailable", "failure 503"]);
  });

  it("waits 100 ms times 2^n by default", async () => {
    const { run, waits } = scenario({ statuses: [503], retries: { max: 2 }, random: () => 1 });
    await run("GET");
    expect(waits).toEqual([100, 200]);
  });

  it.each([429, 502, 503, 504])("retries a %i", async (status) => {
    const { run, seen } = scenario({ statuses: [status, 200] });
    expect((await run("GET")).success).toBe(true);
    expect(seen()).toHaveLength(2);
  });

  it.each([400, 404, 409, 422, 500])("never retries a %i", async (status) => {
    const { run, seen, waits } = scenario({ statuses: [status, 200] });
    const response = await run("GET");
    expect(response).toMatchObject({ success: false, status });
    expect([seen().length, waits.length]).toEqual([1, 0]);
  });

  it.each(["HEAD", "PUT", "DELETE", "get"])("retries the idempotent method %s", async (method) => {
    const { run, seen } = scenario({ statuses: [503] });
    await run(method);
    expect(seen()).toHaveLength(4);
  });

  it.each(["POST", "PATCH"])("never repeats a %s without an idempotency key, even on 503", async (method) => {
    const { run, seen, waits } = scenario({ statuses: [503, 200] });
    const response = await run(method);
    expect(response).toMatchObject({ success: false, status: 503 });
    expect(response.messages).toEqual(["503 Service Unavailable", "failure 503"]);
    expect([seen().length, waits.length]).toEqual([1, 0]);
  });

  it.each(["Idempotency-Key", "idempotency-key", "X-Idempotency-Key", "X-IDEMPOTENCY-KEY"])(
    "repeats a POST that carries %s",
    async (header) => {
      const { run, seen } = scenario({ statuses: [503, 200] });
      const response = await run("POST", { [header]: "k-1" });
      expect(response.success).toBe(true);
      expect(seen().map((request) => request.method)).toEqual(["POST", "POST"]);
    },
  );

  it("repeats a POST whose key comes from the system's headers", async () => {
    const { run, seen } = scenario({ statuses: [503, 200], headers: { "X-Idempotency-Key": "fixed" } });
    await run("POST");
    expect(seen()).toHaveLength(2);
  });

  it("retries transport errors of a GET but not of a POST", async () => {
    const get = scenario({ statuses: [new Error("socket hang up"), 200] });
    const post = scenario({ statuses: [new Error("socket hang up"), 200] });
    const [got, posted] = [await get.run("GET"), await post.run("POST")];
    expect([get.seen().length, post.seen().length]).toEqual([2, 1]);
    expect(got.success).toBe(true);
    expect(posted).toMatchObject({ success: false, payload: null });
    expect(posted.messages).toEqual(["core: POST /api/x: request failed (socket hang up)"]);
  });

  it("retries a time-out of a GET", async () => {
    const { run, seen } = scenario({ statuses: [200], retries: { max: 1 }, timeoutMs: 20, delayMs: 200 });
    const response = await run("GET");
    expect(seen()).toHaveLength(2);
    expect(response.messages).toEqual([
      "core: GET /api/x: no complete answer within 20 ms; the outcome there is unknown",
      "core: 2 attempts were made",
    ]);
  });

  it("waits no longer than the run's deadline, then stops", async () => {
    const { run, seen, waits } = scenario({
      statuses: [503],
      retries: { max: 3, backoff_ms: 1000 },
      sleep: () => new Promise((resolve) => setTimeout(resolve, 40)),
    });
    const deadline = performance.now() + 30;
    const response = await run("GET", undefined, undefined, { ...callContext(), deadline });
    expect(seen()).toHaveLength(1);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeLessThanOrEqual(30);
    expect(response).toEqual({ success: false, payload: null, messages: ["aborted"] });
  });

  it("stops retrying when the run aborts during a backoff", async () => {
    const controller = new AbortController();
    const { run, seen, waits } = scenario({ statuses: [503], sleep: async () => controller.abort() });
    const response = await run("GET", undefined, controller.signal);
    expect([seen().length, waits.length]).toEqual([1, 1]);
    expect(response).toEqual({ success: false, payload: null, messages: ["aborted"] });
  });
});
