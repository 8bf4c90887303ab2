import { beforeAll, describe, expect, it } from "vitest";
import { createKeyPaths } from "../../src/python/key-paths.js";
import { loadPython } from "../../src/python/runtime.js";
import { runDefinition } from "../_helpers.js";

beforeAll(async () => {
  await loadPython();
}, 30_000);

/** The output of a Python definition whose on_success_hook is `hook`, or its failure's message. */
async function hookOutput(hook: string, payload: unknown): Promise<unknown> {
  const indented = hook
    .trim()
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
  const result = await runDefinition(`name: py\nlanguage: python\non_success_hook: |\n${indented}\n`, {
    payload,
  });
  const failure = result.record.items.find((item) => item.kind === "FAILURE");
  if (failure?.kind === "FAILURE") throw new Error(failure.error.message);
  return result.output.payload;
}

/**
 * Reads `expression` twice in one cell: as written, which bass compiles to one read of the key path, and
 * from a name the cell binds (`root`), which it reads a step at a time. Each gives its value's repr, or
 * its error's type and message.
 */
function bothWays(expression: string): string {
  const stepwise = expression.replace(/^input\b/, "root");
  return `
def read(how):
    try:
        value = how()
        return [type(value).__name__, repr(value), bool(value)]
    except Exception as error:
        return [type(error).__name__, str(error)]
root = input
output.payload = [read(lambda: ${expression}), read(lambda: ${stepwise})]`;
}

const payload = {
  customer: { name: "Ada", address: { city: "London" }, tags: ["a", "b"], none: null, zero: 0 },
  get: "a key named as a dict method",
  list: [{ name: "first" }],
};

describe("key paths of Python cells, read in one call", () => {
  it.each([
    ["input.payload.customer.name", ["str", "'Ada'", true]],
    ["input.payload.customer.address.city", ["str", "'London'", true]],
    ["input.payload.customer.missing", ["Flex", "None", false]],
    ["input.payload.customer.missing.deeper.still", ["Flex", "None", false]],
    ["input.payload.customer.none", ["Flex", "None", false]],
    ["input.payload.customer.none.deeper", ["Flex", "None", false]],
    ["input.payload.customer.zero", ["int", "0", false]],
    ["input.payload.customer.tags", ["Flex", "['a', 'b']", true]],
    ["input.payload.customer.tags.first", ["Flex", "None", false]],
    ["input.payload.list.name", ["Flex", "None", false]],
    ["input.payload.customer.name.upper", ["builtin_function_or_method", undefined, true]],
    ["input.payload.customer.name.missing", ["AttributeError", "'str' object has no attribute 'missing'"]],
    ["input.payload.customer.address", ["Flex", "{'city': 'London'}", true]],
  ])("%s reads as a step at a time does", async (expression, expected) => {
    const [compiled, stepwise] = (await hookOutput(bothWays(expression), payload)) as unknown[][];
    expect(compiled).toEqual(stepwise);
    expect((compiled as unknown[]).slice(0, 1)).toEqual(expected.slice(0, 1));
    if (expected[1] !== undefined) expect(compiled?.[1]).toBe(expected[1]);
  });

  it("leaves a Flex's own names to it: its methods, and keys past them", async () => {
    const output = await hookOutput(
      `output.payload = [input.payload.customer.keys(), input.payload.customer.get("name"), callable(input.payload.get), input.payload.customer.items()[0][0]]`,
      payload,
    );
    expect(output).toEqual([["name", "address", "tags", "none", "zero"], "Ada", true, "name"]);
  });

  it("reads a name the cell binds from the cell's names, a step at a time", async () => {
    const output = await hookOutput(
      `
first = input.payload.customer.name
input = {"payload": {"customer": "bound"}}
output.payload = [first, input["payload"]["customer"]]`,
      payload,
    );
    expect(output).toEqual(["Ada", "bound"]);
  });

  it("falls back to a built-in of the root's name, then to NameError, as any global read does", async () => {
    const output = await hookOutput(
      `
def read(how):
    try:
        return how()
    except NameError as error:
        return str(error)
output.payload = [read(lambda: str.upper.__name__), read(lambda: nowhere.to_be.found)]`,
      payload,
    );
    expect(output).toEqual(["upper", "name 'nowhere' is not defined"]);
  });

  it("sets a key path's last key in one call, and as a step at a time would where it cannot", async () => {
    const output = await hookOutput(
      `
output.status = 201
output.payload = {"customer": {"name": "Ada"}}
output.payload.customer.city = input.payload.customer.address.city
def set_past_missing():
    output.payload.nowhere.city = 1
try:
    set_past_missing()
except TypeError as error:
    output.payload.customer.error = str(error)`,
      payload,
    );
    expect(output).toEqual({
      customer: { name: "Ada", city: "London", error: "cannot set 'city' on a missing value" },
    });
  });
});

describe("createKeyPaths", () => {
  const names: Record<string, unknown> = {
    input: { payload: { a: { b: 1 }, list: [1], nothing: null, undefinedKey: undefined } },
    made: Object.create(null),
    date: new Date(0),
  };
  const read = (name: string) => names[name];

  it("gives one path one index", () => {
    const paths = createKeyPaths();
    expect(paths.register("input.payload.a")).toBe(paths.register("input.payload.a"));
    expect(paths.register("input.payload.b")).not.toBe(paths.register("input.payload.a"));
  });

  it("reads through plain objects, null for a missing key, undefined where a step is no plain object", () => {
    const paths = createKeyPaths();
    const at = (path: string) => paths.read(paths.register(path), read);
    expect(at("input.payload.a.b")).toBe(1);
    expect(at("input.payload.a.c")).toBeNull();
    expect(at("input.payload.nothing.deeper")).toBeNull();
    expect(at("input.payload.undefinedKey")).toBeNull();
    expect(at("input.payload.a.constructor")).toBeNull();
    expect(at("input.payload.list.length")).toBeUndefined();
    expect(at("date.getTime")).toBeUndefined();
    expect(at("nowhere.x")).toBeUndefined();
    expect(at("made.x")).toBeNull();
  });

  it("writes through plain objects and owns keys only", () => {
    const paths = createKeyPaths();
    const target = { payload: { a: {} as Record<string, unknown> } };
    const write = (path: string, value: unknown) => paths.write(paths.register(path), value, () => target);
    expect(write("t.payload.a.b", 2)).toBe(true);
    expect(target.payload.a.b).toBe(2);
    expect(write("t.payload.missing.b", 2)).toBe(false);
    expect(write("t.payload.a.b.c", 2)).toBe(false);
    expect(write("t.toString.x", 2)).toBe(false);
  });
});
