import { describe, expect, it, onTestFinished } from "vitest";
import { echoAdapter } from "../../src/adapters/echo.js";
import { createAdapterResolver } from "../../src/adapters/resolve.js";
import type { SystemConfig } from "../../src/definition/types.js";
import { BassError } from "../../src/errors.js";
import { createTempDir } from "../_helpers.js";
import { callContext, startTestServer } from "./_server.js";

const get = { service_name: "s", payload: { service_path: "/ping", method: "GET" } };

async function resolverFor(systems: Record<string, SystemConfig>, baseUrls?: Record<string, string>) {
  const projectDir = createTempDir({
    "adapters/ledger.mjs":
      "export const execute = (request) => ({ success: true, payload: { module: request.payload } });",
  });
  const adapters = await createAdapterResolver(systems, { projectDir, baseUrls });
  onTestFinished(() => adapters.close());
  return adapters;
}

async function rejection(promise: Promise<unknown>): Promise<BassError> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BassError);
  expect((error as BassError).code).toBe("ADAPTER_UNAVAILABLE");
  return error as BassError;
}

describe("createAdapterResolver", () => {
  it("answers the echo adapter for an echo system", async () => {
    const { resolve } = await resolverFor({ transform: { adapter: "echo" } });
    expect(resolve("transform")).toBe(echoAdapter);
  });

  it("creates one http adapter per system and calls its base_url", async () => {
    const server = await startTestServer((_request, response) => response.end("pong"));
    const { resolve } = await resolverFor({
      core: { adapter: "http", base_url: `${server.url}/core` },
      other: { adapter: "http", base_url: server.url },
    });
    expect(resolve("core")).toBe(resolve("core"));
    expect(resolve("core")).not.toBe(resolve("other"));
    const response = await resolve("core").execute(get, callContext());
    expect(response).toMatchObject({ success: true, status: 200, payload: "pong" });
    expect(server.requests.map((request) => request.url)).toEqual(["/core/ping"]);
  });

  it("loads a module adapter relative to the project folder", async () => {
    const { resolve } = await resolverFor({ ledger: { adapter: "./adapters/ledger.mjs" } });
    const response = await resolve("ledger").execute(get, callContext());
    expect(response).toEqual({
      success: true,
      status: undefined,
      payload: { module: get.payload },
      messages: [],
    });
  });

  it("replaces a system's base_url with the one in baseUrls", async () => {
    const server = await startTestServer((_request, response) => response.end("from the mock core"));
    const { resolve } = await resolverFor(
      { core: { adapter: "http", base_url: "mockcore:" }, other: { adapter: "echo" } },
      { core: server.url },
    );
    const response = await resolve("core").execute(get, callContext());
    expect(response.payload).toBe("from the mock core");
    expect(server.requests).toHaveLength(1);
  });

  it("refuses a mockcore: base_url that the caller did not replace", async () => {
    const error = await rejection(
      createAdapterResolver({ core: { adapter: "http", base_url: "mockcore:" } }, { projectDir: "." }),
    );
    expect(error.message).toContain("system core");
    expect(error.message).toContain("mock core");
  });

  it("refuses a module adapter that is not there", async () => {
    const error = await rejection(
      createAdapterResolver({ ledger: { adapter: "./nowhere.mjs" } }, { projectDir: createTempDir() }),
    );
    expect(error.message).toContain("system ledger: adapter module ./nowhere.mjs not found");
  });

  it("throws for a system the project file does not name", async () => {
    const { resolve } = await resolverFor({ transform: { adapter: "echo" } });
    expect(() => resolve("ledger")).toThrow(BassError);
    expect(() => resolve("ledger")).toThrow(/no system named ledger/);
  });

  it("closes the http adapters", async () => {
    const server = await startTestServer((_request, response) => response.end("pong"));
    const { resolve, close } = await resolverFor({ core: { adapter: "http", base_url: server.url } });
    await close();
    const response = await resolve("core").execute(get, callContext());
    expect(response.success).toBe(false);
    expect(server.requests).toHaveLength(0);
  });
});
