import { describe, expect, it } from "vitest";
import { resolveEnv, stripEnvReferences } from "../../src/definition/env.js";

const env = { TOKEN: "s3cret", USER: "ann", EMPTY: "", URL: "https://core.example" };

describe("resolveEnv", () => {
  it.each<[string, string, string[]]>([
    ["${env:TOKEN}", "s3cret", ["s3cret"]],
    ["Bearer ${env:TOKEN:-dev}", "Bearer s3cret", ["s3cret"]],
    ["${env:MISSING:-dev}", "dev", []],
    ["${env:MISSING:-}", "", []],
    ["${env:EMPTY:-dev}", "", []],
    ["${env:USER}:${env:TOKEN}@${env:MISSING:-host}", "ann:s3cret@host", ["ann", "s3cret"]],
    ["${env:TOKEN}/${env:TOKEN}", "s3cret/s3cret", ["s3cret"]],
    ["${env:1BAD} and $TOKEN", "${env:1BAD} and $TOKEN", []],
  ])("resolves %j", (text, value, secrets) => {
    expect(resolveEnv({ headers: { x: text } }, env)).toEqual({
      value: { headers: { x: value } },
      secrets,
      unset: [],
    });
  });

  it("reports an unset variable without default with its path and leaves an empty string", () => {
    const result = resolveEnv({ systems: { core: { headers: [{ a: "Bearer ${env:NOPE}" }] } } }, env);
    expect(result.value).toEqual({ systems: { core: { headers: [{ a: "Bearer " }] } } });
    expect(result.unset).toEqual([
      { name: "NOPE", path: ["systems", "core", "headers", 0, "a"], line: 1, column: 7 },
    ]);
  });

  it("gives each unset reference its line and column inside a string of several lines", () => {
    const result = resolveEnv({ hook: "a\nb ${env:NOPE:-x} ${env:NOPE}\n${env:ALSO_NOT}" }, env);
    expect(result.unset).toEqual([
      { name: "NOPE", path: ["hook"], line: 2, column: 17 },
      { name: "ALSO_NOT", path: ["hook"], line: 3, column: 0 },
    ]);
  });

  it("does not count a base_url as a secret", () => {
    const result = resolveEnv({ systems: { core: { base_url: "${env:URL}", token: "${env:TOKEN}" } } }, env);
    expect(result.value.systems.core.base_url).toBe("https://core.example");
    expect(result.secrets).toEqual(["s3cret"]);
  });

  it("keeps a __proto__ key as an own key without touching the prototype", () => {
    const input = JSON.parse('{"__proto__": {"polluted": "${env:USER}"}}') as Record<string, unknown>;
    const { value } = resolveEnv(input, env);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ polluted: "ann" });
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("leaves non-strings untouched and copies containers", () => {
    const input = { n: 1, b: false, z: null, list: [2, "${env:USER}"] };
    const { value } = resolveEnv(input, env);
    expect(value).toEqual({ n: 1, b: false, z: null, list: [2, "ann"] });
    expect(input.list[1]).toBe("${env:USER}");
  });
});

describe("stripEnvReferences", () => {
  it.each<[string, string]>([
    ["Bearer ${env:A:-dev}", "Bearer "],
    ["a${env:B}b${env:C:-}c", "abc"],
    ["no references", "no references"],
  ])("%j → %j", (text, stripped) => {
    expect(stripEnvReferences(text)).toBe(stripped);
  });
});
