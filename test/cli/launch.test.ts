import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir, repoRoot } from "../_helpers.js";

const bin = join(repoRoot, "bin", "bass.cjs");

/** bass as a user starts it, with its own user cache folder. */
function bass(args: string[], cwd: string, cacheDir: string) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, BASS_CACHE_DIR: cacheDir, NO_COLOR: "1" },
  });
}

describe("bin/bass.cjs", () => {
  it("answers --version with the package's version", () => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
      version: string;
    };
    const answered = bass(["--version"], repoRoot, createTempDir());
    expect([answered.status, answered.stdout]).toEqual([0, `${version}\n`]);
  });

  it("runs from V8's code cache once a run made it, adapter modules' imports included", () => {
    const cacheDir = createTempDir();
    const project = createTempDir({
      "bass.config.yaml": "systems:\n  greeter:\n    adapter: ./greeter.mjs\n",
      "greeter.mjs":
        "export async function execute(request) {\n  return { success: true, status: 200, payload: { hello: request.payload.name }, messages: [] };\n}\n",
      "integrations/greet.yaml": `name: greet
service_requests:
  - formula_variable: greeting
    system: greeter
    field_mappings:
      - field: name
        value: input.payload.name
on_success_hook: output.payload = greeting.response.payload
`,
      "ada.json": '{ "name": "Ada" }',
    });
    // Another build's caches: one written eight days ago, which goes, and one of today, which stays.
    writeFileSync(join(cacheDir, "cli-old-v0-x64.code"), "");
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600_000);
    utimesSync(join(cacheDir, "cli-old-v0-x64.code"), eightDaysAgo, eightDaysAgo);
    writeFileSync(join(cacheDir, "cli-recent-v0-x64.code"), "");
    const run = () => bass(["run", "greet", "--input", "ada.json", "--json"], project, cacheDir);
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    const cached = readdirSync(cacheDir).filter((name) => name.endsWith(".code"));
    expect(cached).toHaveLength(2);
    expect(cached).toContain("cli-recent-v0-x64.code");
    const second = run();
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).output.payload).toEqual({ hello: "Ada" });
  }, 30_000);

  it("keeps a code cache for each command, so a run's is not the first command's", () => {
    const cacheDir = createTempDir();
    const project = createTempDir({ "bass.config.yaml": "systems: {}\n" });
    expect(bass(["list"], project, cacheDir).status).toBe(0);
    expect(bass(["validate"], project, cacheDir).status).toBe(0);
    const cached = readdirSync(cacheDir).filter((name) => name.endsWith(".code"));
    expect(cached.map((name) => name.replace(/^.*-/, "")).sort()).toEqual(["list.code", "validate.code"]);
  }, 30_000);
});

describe("two copies of one build", () => {
  it("keep code caches of their own, so neither names the other's files", () => {
    const cacheDir = createTempDir();
    const copies = [createTempDir(), createTempDir()];
    for (const copy of copies) {
      for (const part of ["bin", "dist", "schema", "package.json"])
        cpSync(join(repoRoot, part), join(copy, part), { recursive: true });
      symlinkSync(join(repoRoot, "node_modules"), join(copy, "node_modules"));
    }
    const listed = copies.map((copy) =>
      spawnSync(process.execPath, [join(copy, "bin", "bass.cjs"), "list", "--project", "samples"], {
        cwd: repoRoot,
        encoding: "utf8",
        env: { ...process.env, BASS_CACHE_DIR: cacheDir, NO_COLOR: "1" },
      }),
    );
    for (const each of listed) expect(each.status, each.stderr).toBe(0);
    const caches = readdirSync(cacheDir).filter((name) => /^cli-.*-list\.code$/.test(name));
    expect(caches).toHaveLength(2);
  }, 30_000);
});
