import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runIntegration } from "../../src/engine/run.js";
import { openProjectCache } from "../../src/project/cache.js";
import { readDataFile } from "../../src/project/data-file.js";
import { openProject } from "../../src/project/open.js";
import { createTempDir } from "../_helpers.js";

const config = "systems:\n  transform:\n    adapter: echo\n    headers: { X-Key: '${env:KEY}' }\n";
const definition = (name: string, greeting = "hello", body = "'word'") => `name: ${name}
on_success_hook: |
  output.payload = { greeting: "${greeting}", said: t.response.payload.body }
service_requests:
  - formula_variable: t
    system: transform
    field_mappings:
      - { field: body, value: "${body}" }
`;

function createProject() {
  return createTempDir({
    "bass.config.yaml": config,
    "integrations/a.yaml": definition("a"),
    "integrations/b.yaml": definition("b"),
  });
}

const open = (dir: string, env: Record<string, string> = { KEY: "key-1234", WORD: "word-5678" }) =>
  openProject({ cwd: dir, env, cache: true });

/** The cache's entry files, by name. */
function entries(dir: string): string[] {
  return readdirSync(join(dir, ".bass", "cache")).filter((name) => name.endsWith(".json"));
}

/** Runs the definition named `name` of a project as opened. */
async function runNamed(project: Awaited<ReturnType<typeof open>>, name: string) {
  const loaded = project.definitions.find((candidate) => candidate.value.name === name);
  if (!loaded) throw new Error(`no ${name}`);
  const { echoAdapter } = await import("../../src/adapters/echo.js");
  return runIntegration(
    project.compile(loaded),
    { payload: {} },
    { ...project.limits, adapters: () => echoAdapter, trigger: "test", secrets: project.secrets },
  );
}

describe("openProject with its cache", () => {
  it("opens from the cache while the files are unchanged: what the entry holds is what it gets", async () => {
    const dir = createProject();
    await open(dir);
    const [entry] = entries(dir);
    const path = join(dir, ".bass", "cache", entry as string);
    // An entry changed by hand shows that the second open read it instead of parsing the files.
    writeFileSync(path, readFileSync(path, "utf8").replace('"name":"b"', '"name":"from-the-cache"'));
    const names = (await open(dir)).definitions.map((loaded) => loaded.value.name);
    expect(names).toEqual(["a", "from-the-cache"]);
  });

  it("gives the same project from the cache as from the files, and runs its cells", async () => {
    const dir = createProject();
    const fresh = await open(dir);
    const cached = await open(dir);
    const plain = (project: typeof fresh) => ({
      values: project.definitions.map((loaded) => loaded.value),
      issues: project.issues,
      secrets: project.secrets,
      config: project.config,
      limits: project.limits,
      places: project.definitions.map((loaded) => loaded.source.locate(["service_requests", 0, "system"])),
    });
    expect(plain(cached)).toEqual(plain(fresh));
    const result = await runNamed(cached, "b");
    expect(result.output.payload).toEqual({ greeting: "hello", said: "word" });
  });

  it("parses a file again once it changed, and finds a definition file added since", async () => {
    const dir = createProject();
    await open(dir);
    writeFileSync(join(dir, "integrations/a.yaml"), definition("a", "changed"));
    writeFileSync(join(dir, "integrations/c.yaml"), definition("c"));
    const project = await open(dir);
    expect(project.definitions.map((loaded) => loaded.value.name)).toEqual(["a", "b", "c"]);
    expect((await runNamed(project, "a")).output.payload).toMatchObject({ greeting: "changed" });
  });

  it("resolves the environment of each open, and keeps none of its values", async () => {
    const dir = createProject();
    writeFileSync(join(dir, "integrations/b.yaml"), definition("b", "hello", "'${env:WORD}'"));
    await open(dir, { KEY: "key-1234", WORD: "word-5678" });
    const project = await open(dir, { KEY: "other-key-9", WORD: "other-word" });
    expect(project.secrets.sort()).toEqual(["other-key-9", "other-word"]);
    expect((await runNamed(project, "b")).output.payload).toMatchObject({ said: "other-word" });
    const unset = await open(dir, { KEY: "key-1234" });
    expect(unset.issues.filter((issue) => issue.rule === "env-unset").map((issue) => issue.file)).toEqual([
      "integrations/b.yaml",
    ]);
    const stored = entries(dir).map((name) => readFileSync(join(dir, ".bass", "cache", name), "utf8"));
    expect(stored.join("")).not.toMatch(/key-1234|word-5678|other-key-9|other-word/);
  });

  it("keeps a compile error of a definition and throws it again from the cache", async () => {
    // An empty rule passes validate and stops at compile.
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/a.yaml":
        'name: a\nvalidation_rules:\n  - { type: INPUT, field: input.payload, rule: " " }\n',
    });
    const first = await open(dir);
    const second = await open(dir);
    const compile = (project: typeof first) => () => project.compile(project.definitions[0] as never);
    expect(first.issues).toEqual([]);
    expect(compile(first)).toThrow("validation_rules[0].rule is empty");
    expect(compile(second)).toThrow("validation_rules[0].rule is empty");
    expect(
      entries(dir)
        .map((name) => readFileSync(join(dir, ".bass", "cache", name), "utf8"))
        .join(""),
    ).toContain("validation_rules[0].rule is empty");
  });

  it("keeps no entry whose values JSON would change, so a second open reads what the first did", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems:\n  transform:\n    adapter: echo\n",
      "integrations/a.yaml": definition("a").replace("value: \"'word'\"", "literal: .inf"),
    });
    const literal = async () =>
      (
        (await open(dir)).definitions[0]?.value.service_requests?.[0]?.field_mappings?.[0] as {
          literal?: unknown;
        }
      )?.literal;
    expect(await literal()).toBe(Number.POSITIVE_INFINITY);
    expect(await literal()).toBe(Number.POSITIVE_INFINITY);
  });

  it("opens as usual where the cache cannot be written", async () => {
    const dir = createProject();
    writeFileSync(join(dir, ".bass"), "a file where the folder would be");
    expect((await open(dir)).definitions).toHaveLength(2);
    expect((await open(dir)).definitions).toHaveLength(2);
  });
});

describe("readDataFile with the cache", () => {
  it("reads a YAML file from the cache while it is unchanged, and parses it again once it changed", async () => {
    const dir = createTempDir({ "mock.yaml": "t: { success: true, payload: 1 }\n" });
    const cache = openProjectCache(dir);
    const path = join(dir, "mock.yaml");
    expect(await readDataFile(path, "m", { cache })).toEqual({ t: { success: true, payload: 1 } });
    const [entry] = entries(dir);
    const entryPath = join(dir, ".bass", "cache", entry as string);
    writeFileSync(entryPath, readFileSync(entryPath, "utf8").replace('"payload":1', '"payload":2'));
    expect(await readDataFile(path, "m", { cache })).toEqual({ t: { success: true, payload: 2 } });
    writeFileSync(path, "t: { success: true, payload: 3 }\n");
    expect(await readDataFile(path, "m", { cache })).toEqual({ t: { success: true, payload: 3 } });
  });
});
