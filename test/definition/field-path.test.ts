import { describe, expect, it } from "vitest";
import { type PathSegment, parseFieldPath } from "../../src/definition/field-path.js";

const key = (name: string): PathSegment => ({ kind: "key", name });

describe("parseFieldPath", () => {
  it.each<[string, PathSegment[]]>([
    ["a.b", [key("a"), key("b")]],
    ["a[0]", [key("a"), { kind: "index", index: 0 }]],
    ["a[12].b", [key("a"), { kind: "index", index: 12 }, key("b")]],
    ['a["key.with.dots"]', [key("a"), key("key.with.dots")]],
    ["a['x']", [key("a"), key("x")]],
    ["a[*].b", [key("a"), { kind: "wildcard" }, key("b")]],
    [
      "fm_body[fidx].test_key",
      [key("fm_body"), { kind: "expression", code: "fidx", offset: 8 }, key("test_key")],
    ],
    [
      "items[input.payload.i + 1]",
      [key("items"), { kind: "expression", code: "input.payload.i + 1", offset: 6 }],
    ],
    ["items[ fidx ]", [key("items"), { kind: "expression", code: "fidx", offset: 7 }]],
    ["headers.X-Idempotency-Key", [key("headers"), key("X-Idempotency-Key")]],
    ["a[b[0]]", [key("a"), { kind: "expression", code: "b[0]", offset: 2 }]],
    ['a["]"]', [key("a"), key("]")]],
  ])("parses %s", (text, segments) => {
    expect(parseFieldPath(text)).toEqual({ ok: true, segments });
  });

  it.each<[string, string, number]>([
    ["", "the path is empty", 0],
    ["a..b", "a name is missing before .", 2],
    ["a.", "the path ends with .", 2],
    [".a", "a name is missing before .", 0],
    ["a[", "unclosed [", 1],
    ["a[]", "empty []", 1],
    ["a b", 'unexpected " "', 1],
    ["a[0]b", 'unexpected "b"', 4],
  ])("rejects %j", (text, message, offset) => {
    expect(parseFieldPath(text)).toEqual({ ok: false, message, offset });
  });
});
