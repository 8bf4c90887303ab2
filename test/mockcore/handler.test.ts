import { describe, expect, it } from "vitest";
import { createDemoLedger } from "../../src/mockcore/demo-data.js";
import { createMockcoreHandler } from "../../src/mockcore/handler.js";

const clock = () => new Date("2026-02-01T12:00:00Z");

/** A handler on the demo data whose saver counts its writes, or fails them with `failSave`. */
function handler(failSave = false) {
  const saves: number[] = [];
  const ledger = createDemoLedger(clock);
  const saver = {
    save: async () => {
      if (failSave) throw new Error("disk full");
      saves.push(ledger.state.revision);
    },
    flush: async () => {},
  };
  const respond = createMockcoreHandler({ ledger, saver, bodyLimitBytes: 1024 });
  const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    respond(
      { method, url, headers },
      body === undefined
        ? Buffer.alloc(0)
        : Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
    );
  return { ledger, saves, respond, call };
}

const transferBody = { fromAccount: "1000000001", toAccount: "1000000002", amount: "10.00", currency: "USD" };

describe("the mock core's handler, in-process", () => {
  it.each<[string, string, unknown, number, string | undefined]>([
    ["GET", "/core/v1/persons/P000001", undefined, 200, undefined],
    ["GET", "/core/v1/accounts/1000000001/transactions?limit=2", undefined, 200, undefined],
    ["GET", "/core/v1/nowhere", undefined, 404, "NOT_FOUND"],
    ["DELETE", "/core/v1/persons/P000001", undefined, 405, "METHOD_NOT_ALLOWED"],
    ["GET", "/core/v1/persons/%E0%A4%A", undefined, 400, "INVALID_REQUEST"],
    ["POST", "/core/v1/transfers", "{not json", 400, "INVALID_REQUEST"],
    ["POST", "/core/v1/transfers", transferBody, 201, undefined],
  ])("answers %s %s with %i", async (method, url, body, status, errorCode) => {
    const answer = await handler().call(method, url, body);
    expect(answer.status).toBe(status);
    if (errorCode) expect(answer.body).toMatchObject({ errorCode });
  });

  it("names the allowed methods in a 405's allow header", async () => {
    const answer = await handler().call("PUT", "/core/v1/transfers");
    expect(answer.headers).toEqual({ allow: "POST" });
  });

  it("answers 413 to a body that passed the limit", async () => {
    const answer = await handler().respond(
      { method: "POST", url: "/core/v1/transfers", headers: {} },
      undefined,
    );
    expect(answer).toMatchObject({ status: 413, body: { errorCode: "PAYLOAD_TOO_LARGE" } });
    expect(answer.body).toMatchObject({ errorMessage: "the body is larger than 1024 bytes" });
  });

  it("saves after a change, before answering, and not after a read or a repeated key", async () => {
    const { call, saves } = handler();
    await call("GET", "/core/v1/accounts/1000000001");
    const headers = { "x-idempotency-key": "k1" };
    await call("POST", "/core/v1/transfers", transferBody, headers);
    expect(saves).toEqual([1]);
    await call("POST", "/core/v1/transfers", transferBody, headers);
    expect(saves).toEqual([1]);
  });

  it("answers 500 when the change is made but the data file cannot be written", async () => {
    const { call, ledger } = handler(true);
    const answer = await call("POST", "/core/v1/transfers", transferBody);
    expect(answer).toMatchObject({ status: 500, body: { errorCode: "INTERNAL" } });
    expect(answer.body).toMatchObject({ errorMessage: expect.stringContaining("disk full") });
    expect(ledger.state.revision).toBe(1);
  });
});
