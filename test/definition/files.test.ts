import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createGlobMatcher, findProjectFile, listDefinitionFiles } from "../../src/definition/files.js";
import { createTempDir } from "../_helpers.js";

describe("createGlobMatcher", () => {
  it.each<[string, string, boolean]>([
    ["*.yaml", "a.yaml", true],
    ["*.yaml", "sub/a.yaml", false],
    ["*.yaml", "a.yml", false],
    ["a.yaml", "aXyaml", false],
    ["**/*.yaml", "a.yaml", true],
    ["**/*.yaml", "x/y/a.yaml", true],
    ["a/**/b.yaml", "a/b.yaml", true],
    ["a/**/b.yaml", "a/x/y/b.yaml", true],
    ["a/**/b.yaml", "ab.yaml", false],
    ["a?.yml", "ab.yml", true],
    ["a?.yml", "a/.yml", false],
    ["a+(b).yaml", "a+(b).yaml", true],
    ["a+(b).yaml", "ab.yaml", false],
    ["{a,b}.yaml", "{a,b}.yaml", true],
    ["{a,b}.yaml", "a.yaml", false],
    ["[ab].yaml", "a.yaml", false],
    ["!a.yaml", "b.yaml", false],
    ["!a*.yaml", "!ab.yaml", true],
    ["*(v1).yaml", "x(v1).yaml", true],
    ["a(b)*.yaml", "a(b)c.yaml", true],
    ["a\\b*.yaml", "a\\bc.yaml", true],
    ["a\\b*.yaml", "ab.yaml", false],
    ["x+y/**/*.yaml", "x+y/q/r.yaml", true],
    ["é*.yaml", "éa.yaml", true],
  ])("%s on %s → %s", (glob, path, matches) => {
    expect(createGlobMatcher(glob)(path)).toBe(matches);
  });
});

describe("listDefinitionFiles", () => {
  const tree = {
    "bass.config.yaml": "",
    "integrations/a.yaml": "",
    "integrations/sub/b.yml": "",
    "integrations/a.test.yaml": "",
    "integrations/bass.config.yaml": "",
    "integrations/notes.md": "",
    "integrations/.drafts/c.yaml": "",
    "integrations/node_modules/d.yaml": "",
    "other/e.yml": "",
  };

  it.each<[string[], string[], string[]]>([
    [["integrations"], ["integrations/a.yaml", "integrations/sub/b.yml"], []],
    [["integrations/*.yaml"], ["integrations/a.yaml"], []],
    [["**/*.yml"], ["integrations/sub/b.yml", "other/e.yml"], []],
    [
      ["other", "integrations/*.yaml", "integrations"],
      ["integrations/a.yaml", "integrations/sub/b.yml", "other/e.yml"],
      [],
    ],
    [["missing", "integrations/*.json", "other/e.yml"], ["other/e.yml"], ["missing", "integrations/*.json"]],
  ])("lists %j", (patterns, files, unmatched) => {
    const dir = createTempDir(tree);
    expect(listDefinitionFiles(dir, patterns)).toEqual({
      files: files.map((file) => join(dir, file)),
      unmatched,
    });
  });
});

describe("listDefinitionFiles and links", () => {
  function linkedTree(): string {
    const dir = createTempDir({ "integrations/a.yaml": "", "elsewhere/b.yaml": "", "README.md": "" });
    symlinkSync("nowhere.yaml", join(dir, "integrations/dangling.yaml"));
    symlinkSync("loop.yaml", join(dir, "integrations/loop.yaml"));
    symlinkSync("../integrations", join(dir, "integrations/sub"));
    symlinkSync("../elsewhere", join(dir, "integrations/other"));
    symlinkSync("../elsewhere/b.yaml", join(dir, "integrations/b.yaml"));
    return dir;
  }

  it.each([["integrations"], ["integrations/**/*.yaml"]])(
    "lists %s without following links to folders, keeping only links that end at a file",
    (pattern) => {
      const dir = linkedTree();
      expect(listDefinitionFiles(dir, [pattern])).toEqual({
        files: [join(dir, "integrations/a.yaml"), join(dir, "integrations/b.yaml")],
        unmatched: [],
      });
    },
  );

  it("lists no explicit file that is not a definition", () => {
    const dir = linkedTree();
    expect(listDefinitionFiles(dir, ["README.md", "integrations/dangling.yaml"])).toEqual({
      files: [],
      unmatched: ["README.md", "integrations/dangling.yaml"],
    });
  });
});

describe("findProjectFile", () => {
  it("finds the nearest project file from a nested folder", () => {
    const dir = createTempDir({ "bass.config.yaml": "", "a/b/c/x.yaml": "", "a/inner/bass.config.yaml": "" });
    expect(findProjectFile(join(dir, "a/b/c"))).toBe(join(dir, "bass.config.yaml"));
    expect(findProjectFile(join(dir, "a/inner"))).toBe(join(dir, "a/inner/bass.config.yaml"));
  });

  it("returns undefined without a project file up to the root", () => {
    expect(findProjectFile(join(createTempDir({ "a/x.yaml": "" }), "a"))).toBeUndefined();
  });
});
