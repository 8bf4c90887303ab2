import { describe, expect, it, onTestFinished, vi } from "vitest";
import { formatPath, type Position, type ValuePath } from "../../src/definition/value-path.js";
import { parseYamlSource } from "../../src/definition/yaml-source.js";
import { yamlAliasBomb } from "../_helpers.js";
import { trickyScalars as tricky } from "./tricky-scalars.js";

const text = `name: a
systems:
  core: { adapter: http, base_url: "x" }
list:
  - one
  - k: v
    j: [1, 2]
hook: |
  a = 1
  b +
quoted: "  abc"
plain: hello world
blank: |

    foo
`;
const { source, issues } = parseYamlSource("a.yaml", text);
const at = (line: number, column: number): Position => ({ line, column });

describe("parseYamlSource", () => {
  it("parses the value without issues", () => {
    expect(issues).toEqual([]);
    expect(source.value).toMatchObject({ list: ["one", { k: "v", j: [1, 2] }], blank: "\nfoo\n" });
  });

  it.each<[ValuePath, Position, Position]>([
    [["name"], at(1, 1), at(1, 7)],
    [["systems", "core"], at(3, 3), at(3, 9)],
    [["systems", "core", "base_url"], at(3, 26), at(3, 36)],
    [["list", 0], at(5, 5), at(5, 5)],
    [["list", 1, "k"], at(6, 5), at(6, 8)],
    [["list", 1, "j"], at(7, 5), at(7, 8)],
    [["list", 1, "j", 1], at(7, 12), at(7, 12)],
    [["hook"], at(8, 1), at(8, 7)],
    [["list", 5], at(5, 3), at(5, 3)],
    [["systems", "nope", "x"], at(3, 3), at(3, 3)],
  ])("locates the key and value of %j", (path, key, value) => {
    expect(source.locate(path, "key")).toEqual(key);
    expect(source.locate(path, "value")).toEqual(value);
  });

  it.each<[ValuePath, number, number, Position]>([
    [["hook"], 1, 0, at(9, 3)],
    [["hook"], 2, 2, at(10, 5)],
    [["plain"], 1, 6, at(12, 14)],
    [["quoted"], 1, 2, at(11, 12)],
    [["blank"], 2, 0, at(15, 5)],
    [["name", "x"], 1, 3, at(1, 7)],
    [["systems"], 1, 3, at(3, 3)],
  ])("locates %j line %i column %i in the file", (path, line, column, position) => {
    expect(source.locateInString(path, line, column)).toEqual(position);
  });

  it.each<[string, Position[], string]>([
    ["a: 1\nb: 2\na: 3\n", [at(3, 1)], "Map keys must be unique"],
    [
      "a: 1\n  b: 2\nc: {\n",
      [at(1, 4)],
      "Nested mappings are not allowed in compact mappings; check the indentation: a key under another must be indented further, and keys of one map alike",
    ],
    ["a: 1\nb: 2\na: 3\nc: [\n", [at(3, 1), at(5, 1)], "Map keys must be unique"],
  ])("reports %j as yaml-syntax errors", (yaml, positions, firstMessage) => {
    const found = parseYamlSource("b.yaml", yaml).issues;
    expect(found.map(({ line, column }) => at(line, column))).toEqual(positions);
    expect(found.every((issue) => issue.rule === "yaml-syntax" && issue.severity === "error")).toBe(true);
    expect(found[0]).toMatchObject({ file: "b.yaml", message: firstMessage });
  });
});

describe("locateInString where the value is not its source character for character", () => {
  const parsed = parseYamlSource("c.yaml", tricky);

  it("parses the value without issues", () => {
    expect(parsed.issues).toEqual([]);
    expect(parsed.source.value).toMatchObject({
      hook: "  a +\n",
      list: [{ key: "  x\n" }, { key: "y" }],
      crlf: "a = 1\nb +\n",
      folded: "a b +\n",
      escaped: "a\tb +",
      lines: "a b +",
      quoted: "a b",
      doubled: "it's +",
    });
  });

  it.each<[ValuePath, number, number, Position]>([
    [["hook"], 1, 4, at(2, 7)],
    [["list", 0, "key"], 1, 2, at(5, 9)],
    [["list", 1, "key"], 1, 0, at(7, 7)],
    [["crlf"], 2, 2, at(10, 5)],
    [["folded"], 1, 4, at(11, 9)],
    [["escaped"], 1, 4, at(14, 10)],
    [["lines"], 1, 4, at(15, 8)],
    [["quoted"], 1, 2, at(17, 9)],
    [["doubled"], 1, 5, at(19, 10)],
  ])("places %j line %i column %i exactly or at the start of the value", (path, line, column, position) => {
    expect(parsed.source.locateInString(path, line, column)).toEqual(position);
  });

  it("drops a byte order mark before parsing", () => {
    const { source: withBom, issues: found } = parseYamlSource("d.yaml", "\uFEFFname: a\nhook: x +\n");
    expect(found).toEqual([]);
    expect(withBom.text.startsWith("name")).toBe(true);
    expect(withBom.locate(["name"])).toEqual(at(1, 1));
    expect(withBom.locateInString(["hook"], 1, 2)).toEqual(at(2, 9));
  });

  it("prints no warning of the yaml package for a key that is a collection", () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    onTestFinished(() => warn.mockRestore());
    expect(parseYamlSource("e.yaml", "? [a, b]\n: 1\n").source.value).toEqual({ "[ a, b ]": 1 });
    expect(warn).not.toHaveBeenCalled();
  });
});

describe("formatPath", () => {
  it.each<[ValuePath, string]>([
    [["service_requests", 0, "field_mappings", 2, "value"], "service_requests[0].field_mappings[2].value"],
    [["name"], "name"],
    [[0, "a"], "[0].a"],
    [["systems", "core api", "headers", "X-Api-Key"], 'systems["core api"].headers.X-Api-Key'],
    [["a\nb", 1], '["a\\nb"][1]'],
    [[], ""],
  ])("formats %j as %j", (path, formatted) => {
    expect(formatPath(path)).toBe(formatted);
  });
});

describe("a document whose aliases expand without bound", () => {
  it("is an error finding at its first alias, with no value, not a thrown error", () => {
    const { source, issues } = parseYamlSource("bomb.yaml", yamlAliasBomb());
    expect(source.value).toBeNull();
    expect(issues).toEqual([
      expect.objectContaining({
        file: "bomb.yaml",
        line: 3,
        column: 10,
        severity: "error",
        rule: "yaml-syntax",
      }),
    ]);
    expect(issues[0]?.message).toContain("aliases expand past 100 copies");
  });

  it("leaves a document of a few aliases as it is", () => {
    const { source, issues } = parseYamlSource("few.yaml", "a: &a [1, 2]\nb: *a\nc: *a\n");
    expect(issues).toEqual([]);
    expect(source.value).toEqual({ a: [1, 2], b: [1, 2], c: [1, 2] });
  });
});
