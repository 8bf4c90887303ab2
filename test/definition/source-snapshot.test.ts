import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { restoreYamlSource } from "../../src/definition/source-snapshot.js";
import type { ValuePath } from "../../src/definition/value-path.js";
import { parseYamlSource } from "../../src/definition/yaml-source.js";
import { trickyScalars } from "./tricky-scalars.js";

const samples = join(import.meta.dirname, "../../samples");
const sampleFiles = ["bass.config.yaml", "integrations", "mocks", "tests"].flatMap((entry) =>
  entry.endsWith(".yaml")
    ? [join(samples, entry)]
    : readdirSync(join(samples, entry)).map((name) => join(samples, entry, name)),
);

// Scalars written every way, and the nodes a walk stops at: empty items and values, duplicate keys, aliases.
const tricky = `${trickyScalars}list2:
  -
twice: first
twice: second
empty:
anchor: &a { x: 1 }
alias: *a
`;

/** Every path of a value, and one step past each (a path that does not exist). */
function pathsOf(value: unknown, path: (string | number)[] = []): ValuePath[] {
  const below =
    Array.isArray(value) || (value !== null && typeof value === "object")
      ? Object.entries(value).flatMap(([key, item]) =>
          pathsOf(item, [...path, Array.isArray(value) ? Number(key) : key]),
        )
      : [];
  return [path, [...path, "missing"], [...path, 7], ...below];
}

describe("restoreYamlSource", () => {
  it.each([
    ...sampleFiles.map((file) => [file.slice(samples.length + 1), readFileSync(file, "utf8")]),
    ["tricky.yaml", tricky],
    ["empty.yaml", ""],
    ["scalar.yaml", "just text\n"],
  ])("answers every place of %s as the parsed file does", (file, text) => {
    const { source } = parseYamlSource(file, text);
    const restored = restoreYamlSource(file, text, JSON.parse(JSON.stringify(source.snapshot())));
    expect(restored.value).toEqual(source.value);
    for (const path of pathsOf(source.value)) {
      expect(restored.locate(path), `key of ${path}`).toEqual(source.locate(path));
      expect(restored.locate(path, "value"), `value of ${path}`).toEqual(source.locate(path, "value"));
      for (const [line, column] of [
        [1, 0],
        [1, 3],
        [2, 2],
        [9, 0],
      ] as const)
        expect(restored.locateInString(path, line, column), `${path} ${line}:${column}`).toEqual(
          source.locateInString(path, line, column),
        );
    }
  });
});
