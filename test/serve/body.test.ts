import { describe, expect, it } from "vitest";
import { jsonDepth, type ParsedBody, parseBody } from "../../src/serve/body.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const ok = (value: unknown): ParsedBody => ({ ok: true, value });

describe("parseBody", () => {
  it.each([undefined, "application/json", "application/xml", "text/plain", "image/png", "nonsense"])(
    "reads an empty body as {} with content type %j",
    (contentType) => {
      expect(parseBody(new Uint8Array(0), contentType)).toEqual(ok({}));
    },
  );

  it.each<[string, string, unknown]>([
    ["application/json", '{"first_name":"Ada","age":36}', { first_name: "Ada", age: 36 }],
    ["application/json; charset=utf-8", "[1,2,3]", [1, 2, 3]],
    ["Application/JSON;Charset=ISO-8859-1", '"text"', "text"],
    ["application/problem+json", '{"a":null}', { a: null }],
    ["application/vnd.bank.customer+json; version=2", '{"a":true}', { a: true }],
    ["application/json", ' \n {"nested":{"list":[{"x":"]}"}]}} ', { nested: { list: [{ x: "]}" }] } }],
    ["application/json", '"caf\\u00e9 \\"quoted\\" ☕"', 'café "quoted" ☕'],
    ["application/json", "\uFEFF{}", {}],
  ])("reads %s %j as JSON", (contentType, text, value) => {
    expect(parseBody(bytes(text), contentType)).toEqual(ok(value));
  });

  it.each<[string, string, unknown]>([
    [
      "application/xml",
      '<?xml version="1.0" encoding="UTF-8"?><customer><first_name>Ada</first_name><age>36</age></customer>',
      { customer: { first_name: "Ada", age: "36" } },
    ],
    ["text/xml; charset=utf-8", "<ok>true</ok>", { ok: "true" }],
    ["application/soap+xml", '<a kind="x"><n>010</n><e/></a>', { a: { "@_kind": "x", n: "010", e: "" } }],
    ["application/xml", "<a>&lt;&amp;&#65;&#x42;</a>", { a: "<&AB" }],
    ["application/xml", "<a>&undefined;</a>", { a: "&undefined;" }],
    ["application/xml", "<a><i>1</i><i>2</i></a>", { a: { i: ["1", "2"] } }],
    ["application/xml", '<a __proto__="x"/>', { a: { "@___proto__": "x" } }],
  ])("reads %s %j as XML, every value a string", (contentType, text, value) => {
    expect(parseBody(bytes(text), contentType)).toEqual(ok(value));
  });

  it.each<[string | undefined, string, 400 | 415, string]>([
    [undefined, "{}", 415, "must be JSON"],
    ["text/plain", "hello", 415, "must be JSON"],
    ["application/x-www-form-urlencoded", "a=1", 415, "must be JSON"],
    ["multipart/form-data; boundary=x", "--x--", 415, "must be JSON"],
    ["application/jsonp", "{}", 415, "must be JSON"],
    ["json", "{}", 415, "must be JSON"],
    ["application/json", '{"password":"hunter2",}', 400, "not valid JSON"],
    ["application/json", '{"password":"hunter2"', 400, "not valid JSON"],
    ["application/json", " ", 400, "not valid JSON"],
    ["application/json", "NaN", 400, "not valid JSON"],
    ["application/xml", "<password>hunter2</b>", 400, "not well-formed XML"],
    ["application/xml", "hunter2", 400, "not well-formed XML"],
    ["application/xml", "<password>hunter2", 400, "not well-formed XML"],
    ["text/xml", '<!DOCTYPE a [<!ENTITY x "hunter2">]><a>&x;</a>', 400, "DOCTYPE"],
    ["text/xml", '<!DOCTYPE a SYSTEM "file:///etc/passwd"><a/>', 400, "DOCTYPE"],
    ["application/xml", "<a><__proto__><polluted>hunter2</polluted></__proto__></a>", 400, "__proto__"],
    ["application/xml", "<a><constructor><prototype>hunter2</prototype></constructor></a>", 400, "__proto__"],
  ])("refuses %s %j with %i", (contentType, text, status, detail) => {
    const parsed = parseBody(bytes(text), contentType);
    expect(parsed).toMatchObject({ ok: false, status });
    const refusal = parsed.ok ? "" : parsed.detail;
    expect(refusal).toContain(detail);
    expect(refusal).not.toContain("hunter2");
    expect(refusal.length).toBeLessThan(120);
  });

  it.each([
    ["a lone continuation byte", [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d]],
    ["a truncated sequence", [0x22, 0xe2, 0x82, 0x22]],
    ["an overlong slash", [0x22, 0xc0, 0xaf, 0x22]],
    ["an encoded surrogate", [0x22, 0xed, 0xa0, 0x80, 0x22]],
  ])("refuses %s as not UTF-8, for JSON and XML", (_, raw) => {
    for (const contentType of ["application/json", "application/xml"]) {
      expect(parseBody(Uint8Array.from(raw), contentType)).toEqual({
        ok: false,
        status: 400,
        detail: "the body is not valid UTF-8",
      });
    }
  });

  it.each([
    [1, "{}", true],
    [1, "[[]]", false],
    [3, '{"a":[{"b":1}]}', true],
    [3, '{"a":[{"b":[]}]}', false],
    [2, '["[[[[", "{{{{", "\\"[[["]', true],
  ])("allows nesting to depth %i: %j → %s", (maxDepth, text, allowed) => {
    expect(parseBody(bytes(text), "application/json", { maxDepth }).ok).toBe(allowed);
  });

  it.each([
    ["JSON", "application/json", (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`],
    ["JSON objects", "application/json", (n: number) => `${'{"a":'.repeat(n - 1)}{}${"}".repeat(n - 1)}`],
    ["XML", "application/xml", (n: number) => `${"<a>".repeat(n)}x${"</a>".repeat(n)}`],
  ])("allows 64 levels of %s by default and refuses 65", (_, contentType, nest) => {
    expect(parseBody(bytes(nest(64)), contentType).ok).toBe(true);
    expect(parseBody(bytes(nest(65)), contentType)).toEqual({
      ok: false,
      status: 400,
      detail: "the body nests deeper than 64 levels",
    });
  });

  it.each([
    ["JSON", "application/json", "[".repeat(1_048_576)],
    ["JSON, closed", "application/json", `${"[".repeat(524_288)}${"]".repeat(524_288)}`],
    ["XML", "application/xml", `${"<a>".repeat(174_762)}${"</a>".repeat(174_762)}`],
  ])("refuses a 1 MB nest of %s for its depth, without overflowing the stack", (_, contentType, text) => {
    expect(parseBody(bytes(text), contentType)).toEqual({
      ok: false,
      status: 400,
      detail: "the body nests deeper than 64 levels",
    });
  });

  it("keeps __proto__ and constructor keys of JSON as own data and pollutes nothing", () => {
    const text =
      '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"a":{"__proto__":[]}}';
    const parsed = parseBody(bytes(text), "application/json");
    expect(parsed.ok).toBe(true);
    const value = (parsed.ok ? parsed.value : {}) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__", "constructor", "a"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: "yes" });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(Object.getPrototypeOf(value.a)).toBe(Object.prototype);
  });

  it("pollutes nothing with XML either", () => {
    parseBody(bytes("<__proto__><polluted>yes</polluted></__proto__>"), "application/xml");
    parseBody(bytes('<a><b __proto__="yes" constructor="yes"/></a>'), "application/xml");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });
});

describe("jsonDepth", () => {
  it.each([
    ["1", 0],
    ["[]", 1],
    ["[[],[[]]]", 3],
    ['{"a":{"b":{}}}', 3],
    ['"[[["', 0],
    ['["\\\\", ["\\"]"]]', 2],
    ["]]][[", 2],
  ])("finds %j nested %i deep", (text, depth) => {
    expect(jsonDepth(text)).toBe(depth);
  });
});
