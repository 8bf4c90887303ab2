import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createTempDir, defaultProjectFile, runCli, runDefinition } from "../_helpers.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Segment = string | number;

/** A leaf that a mask may hide, marked until the payload is built. */
class Secret {
  constructor(readonly value: string | number) {}
}
type Tree = null | boolean | number | string | Secret | Tree[] | { [key: string]: Tree };

// Keys need a quoted path segment when they hold a space, a dot, a quote or é, or are empty.
const keyChars = [..."abcXYZ019_-$. 'é"];
// No white space, quotes, brackets, commas or colons: such a value could be JSON's or the tree's own
// text rather than a leak. Regular expression characters test that masking by value escapes them.
const secretChars = [..."abcdefghkmnpqrstuvwyzABCDEFGHKMNP0123456789-_.@+/#%&*$^?|()é€😀"];
const jsonWords = ["true", "false", "null"];

const keyArb = fc
  .string({ unit: fc.constantFrom(...keyChars), maxLength: 6 })
  .filter((key) => key !== "__proto__");
const secretArb = fc
  .oneof(
    {
      weight: 4,
      arbitrary: fc
        .string({ unit: fc.constantFrom(...secretChars), minLength: 4, maxLength: 14 })
        .filter((text) => !jsonWords.some((word) => word.includes(text))),
    },
    fc.integer({ min: 1000, max: 2 ** 45 }),
    fc.integer({ min: -(2 ** 31), max: -1000 }),
    fc
      .double({ min: -1e6, max: 1e6, noNaN: true })
      .filter((n) => !Number.isInteger(n) && String(n).length >= 4),
  )
  .map((value) => new Secret(value));
const plainLeafArb = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const { tree } = fc.letrec<{ tree: Tree; array: Tree[]; object: Record<string, Tree> }>((tie) => ({
  tree: fc.oneof({ depthSize: "small" }, plainLeafArb, secretArb, tie("array"), tie("object")),
  array: fc.array(tie("tree"), { maxLength: 4 }),
  object: fc.dictionary(keyArb, tie("tree"), { maxKeys: 4 }),
}));

/** A payload with at least one secret leaf, and the paths of its secret leaves. */
const payloadArb = fc
  .tuple(fc.dictionary(keyArb, tree, { maxKeys: 5 }), keyArb, secretArb)
  .map(([root, key, secret]) => {
    const withSecret: Record<string, Tree> = { ...root };
    Object.defineProperty(withSecret, key, {
      value: secret,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const secrets: { path: Segment[]; value: string | number }[] = [];
    const build = (node: Tree, path: Segment[]): Json => {
      if (node instanceof Secret) {
        secrets.push({ path, value: node.value });
        return node.value;
      }
      if (Array.isArray(node)) return node.map((item, index) => build(item, [...path, index]));
      if (node !== null && typeof node === "object") {
        const built: Record<string, Json> = {};
        for (const [name, item] of Object.entries(node)) built[name] = build(item, [...path, name]);
        return built;
      }
      return node;
    };
    return { payload: build(withSecret, []) as Record<string, Json>, secrets };
  });

/** A payload and some of its secret leaves to mask, each by its path, some array steps written `[*]`. */
const caseArb = payloadArb.chain(({ payload, secrets }) =>
  fc
    .tuple(fc.subarray(secrets, { minLength: 1 }), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }))
    .map(([chosen, wildcards]) => ({
      payload,
      masked: chosen.map((secret) => secret.value),
      paths: chosen.map((secret, index) =>
        formatPath(secret.path, wildcards[index % wildcards.length] === true),
      ),
    })),
);

/** A mask `field` for a path: `a.b`, `a["key with. dots"]`, `a[0]` or `a[*]`. */
function formatPath(path: readonly Segment[], wildcards: boolean): string {
  return path
    .map((segment, index) => {
      if (typeof segment === "number") return wildcards ? "[*]" : `[${segment}]`;
      if (/^[A-Za-z0-9_$][A-Za-z0-9_$-]*$/.test(segment)) return index === 0 ? segment : `.${segment}`;
      return segment.includes("'") ? `["${segment}"]` : `['${segment}']`;
    })
    .join("");
}

/** Masks the paths, copies the payload into a request, historizes it, logs it and returns it. */
function definitionFor(name: string, paths: readonly string[]): string {
  return stringify({
    name,
    masks: paths.map((field) => ({ type: "INPUT", field })),
    service_requests: [
      {
        formula_variable: "t",
        system: "transform",
        field_mappings: [{ field: "value", value: "input.payload" }],
      },
    ],
    on_success_hook: [
      "historize(input.payload, 'payload')",
      "historize('all: ' + JSON.stringify(input.payload))",
      "console.log(input.payload)",
      "console.warn('payload', JSON.stringify(input.payload))",
      "output.payload = { echoed: t.response.payload.value, text: JSON.stringify(input.payload) }",
    ].join("\n"),
  });
}

/** Every form in which a masked value could show: as text, and as it is escaped inside JSON text. */
function leaks(text: string, masked: readonly (string | number)[]): string[] {
  return masked
    .map(String)
    .filter((value) => text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1)));
}

describe("masking by value, for any payload", () => {
  it("never records a masked value, and leaves the live data alone", { timeout: 30_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ payload, masked, paths }) => {
        const result = await runDefinition(definitionFor("prop", paths), { payload });
        expect(result.status).toBe("success");
        const text = JSON.stringify(result.record);
        expect(JSON.parse(text)).toEqual(result.record);
        expect(leaks(text, masked)).toEqual([]);
        // A prepared request is a snapshot, in which -0 becomes 0 as in JSON: the echo answers that.
        const echoed = JSON.parse(JSON.stringify(payload));
        expect(result.output.payload).toEqual({ echoed, text: JSON.stringify(payload) });
      }),
      { numRuns: 50 },
    );
  });

  it("never prints or writes a masked value with bass run", { timeout: 30_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ payload, masked, paths }) => {
        const dir = createTempDir({
          "bass.config.yaml": defaultProjectFile,
          "integrations/prop.yaml": definitionFor("prop", paths),
          "input.json": JSON.stringify(payload),
        });
        const json = await runCli(["run", "prop", "--input", "input.json", "--json"], { cwd: dir });
        const tree = await runCli(["run", "prop", "--input", "input.json"], { cwd: dir });
        expect([json.code, json.stderr, tree.code, tree.stderr]).toEqual([0, "", 0, ""]);
        const printed = JSON.parse(json.stdout) as { history: unknown };
        expect(typeof printed.history).toBe("object");
        expect(leaks(json.stdout, masked)).toEqual([]);
        expect(leaks(tree.stdout, masked)).toEqual([]);

        const historyDir = join(dir, ".bass", "history");
        const files = readdirSync(historyDir);
        expect(files).toHaveLength(2);
        for (const file of files) {
          const written = readFileSync(join(historyDir, file), "utf8");
          expect(() => JSON.parse(written)).not.toThrow();
          expect(leaks(written, masked)).toEqual([]);
        }
      }),
      { numRuns: 10 },
    );
  });
});
