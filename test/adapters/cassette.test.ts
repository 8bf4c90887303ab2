import { describe, expect, it } from "vitest";
import type { AdapterCallContext, AdapterResponse } from "../../src/adapters/adapter.js";
import {
  type Cassette,
  checkCassette,
  createRecorder,
  createReplayAdapter,
} from "../../src/adapters/cassette.js";

const context = (formulaVariable: string, sridx: number | null = null): AdapterCallContext => ({
  system: "core",
  formulaVariable,
  sridx,
  signal: new AbortController().signal,
});
const answer = (payload: unknown): AdapterResponse => ({ success: true, status: 200, payload, messages: [] });
const request = (method: string, path: string) => ({
  service_name: "n/a",
  payload: { method, service_path: path },
});

const cassette: Cassette = {
  integration: "a",
  recorded_at: "2026-01-01T00:00:00Z",
  exchanges: [
    {
      formula_variable: "core",
      sridx: null,
      system: "core",
      request: request("GET", "/persons/XXXXXXXXXXXX"),
      response: answer({ n: 1 }),
    },
    {
      formula_variable: "items",
      sridx: 0,
      system: "core",
      request: request("POST", "/items"),
      response: answer({ n: 2 }),
    },
    {
      formula_variable: "items",
      sridx: 1,
      system: "core",
      request: request("POST", "/items"),
      response: answer({ n: 3 }),
    },
  ],
};

describe("createRecorder", () => {
  it("keeps every exchange in order, as the adapter answered it", async () => {
    let calls = 0;
    const recorder = createRecorder(() => ({ execute: async () => answer({ call: ++calls }) }));
    await recorder.resolve("core").execute(request("GET", "/a"), context("first"));
    await recorder.resolve("crm").execute(request("POST", "/b"), context("second", 2));
    expect(recorder.exchanges).toEqual([
      {
        formula_variable: "first",
        sridx: null,
        system: "core",
        request: request("GET", "/a"),
        response: answer({ call: 1 }),
      },
      {
        formula_variable: "second",
        sridx: 2,
        system: "crm",
        request: request("POST", "/b"),
        response: answer({ call: 2 }),
      },
    ]);
  });
});

describe("createReplayAdapter", () => {
  it("answers by formula variable and sridx, a masked part of a path matching anything", async () => {
    const adapter = createReplayAdapter(cassette, "c.yaml");
    expect(await adapter.execute(request("GET", "/persons/P000001"), context("core"))).toEqual(
      answer({ n: 1 }),
    );
    expect(await adapter.execute(request("POST", "/items"), context("items", 1))).toEqual(answer({ n: 3 }));
    expect(await adapter.execute(request("POST", "/items"), context("items", 0))).toEqual(answer({ n: 2 }));
  });

  it.each([
    [
      "another path",
      request("GET", "/accounts/1"),
      context("core"),
      /c\.yaml holds no exchange for service request "core" \(GET \/accounts\/1\)/,
    ],
    ["another method", request("DELETE", "/persons/P1"), context("core"), /"core" \(DELETE \/persons\/P1\)/],
    ["another sridx", request("POST", "/items"), context("items", 2), /"items\[2\]"/],
    ["another formula variable", request("GET", "/persons/P1"), context("crm"), /"crm"/],
  ])("fails a call the cassette does not hold: %s", async (_case, call, callContext, message) => {
    await expect(createReplayAdapter(cassette, "c.yaml").execute(call, callContext)).rejects.toThrow(message);
  });

  it("answers each recorded exchange once", async () => {
    const adapter = createReplayAdapter(cassette, "c.yaml");
    await adapter.execute(request("GET", "/persons/P1"), context("core"));
    await expect(adapter.execute(request("GET", "/persons/P1"), context("core"))).rejects.toThrow(
      /holds no exchange/,
    );
  });
});

describe("checkCassette", () => {
  it.each([
    [cassette, undefined],
    [{}, /a cassette is/],
    [{ exchanges: [{ formula_variable: "a", sridx: "x", response: { success: true } }] }, /exchanges\[0\]/],
    [{ exchanges: [{ formula_variable: "a", sridx: null, response: {} }] }, /exchanges\[0\]/],
  ])("checks %j", (value, problem) => {
    const found = checkCassette(value);
    if (problem) expect(found).toMatch(problem);
    else expect(found).toBeUndefined();
  });
});
