import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createProjectAdapters } from "../../src/project/adapters.js";
import { openProject } from "../../src/project/open.js";
import { assertUsable, formatIssueLine, formatWarnings } from "../../src/project/usable.js";
import { createTempDir } from "../_helpers.js";

const greet = (name: string) => `name: ${name}
service_requests:
  - formula_variable: t
    system: transform
    field_mappings:
      - { field: body, value: "'\${env:GREETING}'" }
`;

function createProject(config = "systems:\n  transform:\n    adapter: echo\n") {
  return createTempDir({
    "bass.config.yaml": config,
    "integrations/a.yaml": greet("a"),
    "integrations/b.yaml": greet("b"),
  });
}

describe("openProject", () => {
  it("takes the run limits from the project file, with defaults for what it leaves out", async () => {
    const defaults = await openProject({ cwd: createProject(), env: {} });
    expect(defaults.limits).toEqual({
      cellTimeoutMs: 1000,
      runTimeoutMs: 30000,
      cellMemoryMb: 256,
      outputBytes: 10 * 1024 * 1024,
    });
    const set = await openProject({
      cwd: createProject(
        "systems: {}\nlimits: { cell_timeout_ms: 5, run_timeout_ms: 70, cell_memory_mb: 64, output_bytes: 99 }\n",
      ),
      env: {},
    });
    expect(set.limits).toEqual({ cellTimeoutMs: 5, runTimeoutMs: 70, cellMemoryMb: 64, outputBytes: 99 });
  });

  it("loads all definitions, one by name, or none", async () => {
    const dir = createProject();
    const names = async (choice: Parameters<typeof openProject>[0]["definitions"]) =>
      (await openProject({ cwd: dir, env: {}, definitions: choice })).definitions.map(
        (loaded) => loaded.value.name,
      );
    expect(await names("all")).toEqual(["a", "b"]);
    expect(await names({ name: "b" })).toEqual(["b"]);
    expect(await names("none")).toEqual([]);
    await expect(names({ name: "c" })).rejects.toThrow(/no integration named c/);
  });

  it("collects the secrets of the project file and of every definition it loaded", async () => {
    const dir = createProject(
      "systems:\n  transform:\n    adapter: echo\n    headers: { X-Key: '${env:KEY}' }\n",
    );
    const env = { KEY: "key-1234", GREETING: "hello-secret" };
    expect((await openProject({ cwd: dir, env })).secrets.sort()).toEqual(["hello-secret", "key-1234"]);
    expect((await openProject({ cwd: dir, env, definitions: "none" })).secrets).toEqual(["key-1234"]);
  });

  it("reports an unset variable as blocking, with file, line and rule", async () => {
    const project = await openProject({ cwd: createProject(), env: {}, definitions: { name: "a" } });
    const [unset] = project.issues.filter((issue) => issue.rule === "env-unset");
    expect(unset && formatIssueLine(unset)).toMatch(
      /^integrations\/a\.yaml:6:\d+ {2}environment variable GREETING .* \(env-unset\)$/,
    );
    expect(() => assertUsable(project.issues, "integration a")).toThrow(/integration a cannot be used/);
    expect(formatWarnings(project.issues)).toBe("");
  });
});

describe("createProjectAdapters", () => {
  it("answers from mock answers, from a cassette, or from the live systems started once", async () => {
    const dir = createProject();
    const project = await openProject({ cwd: dir, env: { GREETING: "hi" } });
    const adapters = createProjectAdapters(project);
    const call = { formulaVariable: "t", sridx: null } as never;
    const mock = await adapters.resolverFor({
      kind: "mock",
      answers: { t: { success: true, payload: 1 } },
      source: "m",
    });
    expect(await mock("transform").execute({ service_name: "x", payload: {} }, call)).toMatchObject({
      payload: 1,
    });
    const first = await adapters.resolverFor({ kind: "live" });
    const second = await adapters.resolverFor({ kind: "live" });
    expect(second).toBe(first);
    const echoed = await first("transform").execute({ service_name: "x", payload: { body: 2 } }, call);
    expect(echoed.payload).toEqual({ body: 2 });
    await adapters.close();
  });

  it("closes without error when the live systems failed to start", async () => {
    const dir = createProject("systems:\n  custom:\n    adapter: ./missing-adapter.js\n");
    writeFileSync(join(dir, "integrations/a.yaml"), "name: a\n");
    writeFileSync(join(dir, "integrations/b.yaml"), "name: b\n");
    const adapters = createProjectAdapters(await openProject({ cwd: dir, env: {} }));
    await expect(adapters.resolverFor({ kind: "live" })).rejects.toThrow();
    await expect(adapters.close()).resolves.toBeUndefined();
  });
});
