import { describe, expect, it } from "vitest";
import type { ServeAuth } from "../../src/definition/types.js";
import { createAuthenticator } from "../../src/serve/auth.js";

const basic = (credentials: string) => `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
/** Whether the authenticator of `auth` lets a request with `header` in (it gives its credential's scope). */
const letsIn = (auth: ServeAuth | undefined) => {
  const authenticate = createAuthenticator(auth);
  return (header: string | undefined) => authenticate(header) !== undefined;
};

describe("createAuthenticator", () => {
  it.each<[string, ServeAuth | undefined]>([
    ["no auth", undefined],
    ["auth none", { type: "none" }],
  ])("lets every request in with %s", (_, auth) => {
    const authenticate = letsIn(auth);
    for (const header of [undefined, "", "Bearer x", "garbage"]) expect(authenticate(header)).toBe(true);
  });

  const bearer = letsIn({ type: "bearer", tokens: ["s3cr3t-token", "second.token_2"] });
  it.each<[string | undefined, boolean]>([
    ["Bearer s3cr3t-token", true],
    ["Bearer second.token_2", true],
    ["bearer s3cr3t-token", true],
    ["BEARER   s3cr3t-token  ", true],
    ["Bearer s3cr3t-toke", false],
    ["Bearer s3cr3t-token2", false],
    ["Bearer S3CR3T-TOKEN", false],
    ["Bearer s3cr3t-token second.token_2", false],
    ["Bearer", false],
    ["Bearer ", false],
    ["Bearers3cr3t-token", false],
    ["Basic s3cr3t-token", false],
    ["s3cr3t-token", false],
    ["", false],
    [undefined, false],
    ["Bearer \u0000", false],
    [`Bearer ${"x".repeat(100_000)}`, false],
  ])("bearer: %j → %s", (header, expected) => {
    expect(bearer(header)).toBe(expected);
  });

  it("lets nobody in with an empty list of tokens", () => {
    expect(letsIn({ type: "bearer", tokens: [] })("Bearer anything")).toBe(false);
  });

  const users = letsIn({
    type: "basic",
    users: { ada: "lovelace", "grace hopper": "c:o:b:o:l", émile: "" },
  });
  it.each<[string | undefined, boolean]>([
    [basic("ada:lovelace"), true],
    [basic("grace hopper:c:o:b:o:l"), true],
    [basic("émile:"), true],
    [`basic ${Buffer.from("ada:lovelace").toString("base64")}`, true],
    [basic("ada:Lovelace"), false],
    [basic("ada:lovelac"), false],
    [basic("Ada:lovelace"), false],
    [basic("ada:"), false],
    [basic("ada"), false],
    [basic(":lovelace"), false],
    [basic("grace:lovelace"), false],
    [basic("ada:c:o:b:o:l"), false],
    [basic("émile:x"), false],
    ["Basic YWRhOmxvdmVsYWNl!", false],
    ["Basic YWRhOmxvdmVsYWN", false],
    ["Basic ====", false],
    ["Basic", false],
    [`Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe]).toString("base64")}`, false],
    [`Bearer ${Buffer.from("ada:lovelace").toString("base64")}`, false],
    ["", false],
    [undefined, false],
  ])("basic: %j → %s", (header, expected) => {
    expect(users(header)).toBe(expected);
  });

  it("never throws on a malformed header", () => {
    const headers = [
      "Basic %%%",
      "Basic \u00ff\u00fe",
      "Bearer \ud800",
      "\r\n",
      " Bearer x",
      "Basic =",
      "Basic a===",
    ];
    for (const header of headers) {
      expect(() => users(header)).not.toThrow();
      expect(() => bearer(header)).not.toThrow();
      expect(users(header) || bearer(header)).toBe(false);
    }
  });

  it("gives each credential a scope of its own, which names no secret", () => {
    const tokens = createAuthenticator({ type: "bearer", tokens: ["token-a", "token-b"] });
    const a = tokens("Bearer token-a");
    expect(a).toMatch(/^bearer:[0-9a-f]{64}$/);
    expect(tokens("bearer   token-a ")).toBe(a);
    expect(tokens("Bearer token-b")).not.toBe(a);
    const pairs = createAuthenticator({ type: "basic", users: { ada: "x", grace: "y" } });
    const ada = pairs(basic("ada:x"));
    expect(ada).toMatch(/^basic:[0-9a-f]{64}$/);
    expect(pairs(basic("grace:y"))).not.toBe(ada);
    for (const scope of [a, ada]) expect(scope).not.toMatch(/token-a|ada/);
    expect(createAuthenticator({ type: "none" })(undefined)).toBe("none");
  });
});
