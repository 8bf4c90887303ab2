import { describe, expect, it } from "vitest";
import { checkHost, checkOrigin, type EdgeRules } from "../../src/serve/edge.js";

const rules: EdgeRules = {
  boundHost: "127.0.0.1",
  allowedHosts: ["bass.test", ".dev.example.com"],
  allowedOrigins: ["https://app.example.com"],
  auth: { type: "none" },
};

describe("the Host check", () => {
  it.each([
    "127.0.0.1:3000",
    "127.0.0.1",
    "10.1.2.3:80",
    "[::1]:3000",
    "localhost:3000",
    "LOCALHOST",
    "localhost.",
    "bass.test",
    "dev.example.com:8080",
    "api.dev.example.com",
  ])("lets %s in", (host) => {
    expect(checkHost(host, rules)).toBeUndefined();
  });

  it("lets the bound host in", () => {
    expect(checkHost("my-box.lan:3000", { ...rules, boundHost: "my-box.lan" })).toBeUndefined();
  });

  it.each([
    "attacker.example",
    "attacker.example:3000",
    "127.0.0.1.nip.io",
    "localhost.attacker.example",
    "example.com",
    "xdev.example.com",
  ])("answers %s with 421", (host) => {
    const refusal = checkHost(host, rules);
    expect(refusal?.status).toBe(421);
    expect(refusal?.detail).toContain("serve.allowed_hosts");
  });

  it.each([undefined, "", "a b", "user@127.0.0.1", "127.0.0.1/x"])("answers the Host %j with 400", (host) => {
    expect(checkHost(host, rules)?.status).toBe(400);
  });
});

describe("the Origin check", () => {
  const served = { host: "127.0.0.1:3000" };

  it.each([
    ["a POST without Origin (curl, SDKs)", "POST", {}],
    ["a POST from the served origin", "POST", { origin: "http://127.0.0.1:3000" }],
    ["a GET from another site", "GET", { origin: "https://evil.example", fetchSite: "cross-site" }],
    ["a POST from an allowed origin", "POST", { origin: "https://app.example.com", fetchSite: "cross-site" }],
    ["a same-origin fetch", "DELETE", { origin: "http://127.0.0.1:3000", fetchSite: "same-origin" }],
  ])("lets %s in", (_, method, headers) => {
    expect(checkOrigin(method, { ...served, ...headers }, rules)).toBeUndefined();
  });

  it.each([
    ["a form post from another site", "POST", { origin: "https://evil.example" }],
    ["a text/plain fetch from another port", "PUT", { origin: "http://127.0.0.1:5173" }],
    ["a sandboxed page", "PATCH", { origin: "null" }],
    ["a cross-site request without Origin", "DELETE", { fetchSite: "cross-site" }],
  ])("answers %s with 403 under auth none", (_, method, headers) => {
    const refusal = checkOrigin(method, { ...served, ...headers }, rules);
    expect(refusal?.status).toBe(403);
    expect(refusal?.detail).toContain("serve.allowed_origins");
  });

  it("leaves cross-site requests to the token under bearer auth, which a page cannot send by itself", () => {
    const bearer: EdgeRules = { ...rules, auth: { type: "bearer", tokens: ["t"] } };
    expect(checkOrigin("POST", { ...served, origin: "https://evil.example" }, bearer)).toBeUndefined();
  });

  it("refuses cross-site requests under basic auth, whose user a browser sends by itself", () => {
    const basic: EdgeRules = { ...rules, auth: { type: "basic", users: { u: "p" } } };
    const refusal = checkOrigin("POST", { ...served, origin: "https://evil.example" }, basic);
    expect(refusal?.status).toBe(403);
    expect(refusal?.detail).toContain("serve.auth is basic");
  });
});

describe("the Origin check behind a proxy", () => {
  const none: EdgeRules = {
    boundHost: "127.0.0.1",
    allowedHosts: ["bass.test"],
    allowedOrigins: [],
    auth: { type: "none" },
  };

  it("lets a page of the served host in over https, and with the default port written out", () => {
    expect(checkOrigin("POST", { host: "bass.test", origin: "https://bass.test" }, none)).toBeUndefined();
    expect(checkOrigin("POST", { host: "bass.test:80", origin: "http://bass.test" }, none)).toBeUndefined();
    expect(checkOrigin("POST", { host: "bass.test", origin: "https://evil.test" }, none)?.status).toBe(403);
  });
});
