import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir, repoRoot } from "../_helpers.js";

/** The most bass's own files and a project's whole install may weigh, unpacked. */
const bassBudget = 10 * 1024 * 1024;
const installBudget = 40 * 1024 * 1024;

/** Bytes of every file under `dir`. */
function weight(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
}

/**
 * The tarball `npm pack` makes of this checkout, made from a copy: packing the checkout itself rebuilds
 * dist/ (prepack), which the other test files run from.
 */
function packCopy(): string {
  const copy = createTempDir();
  const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { files: string[] };
  for (const entry of [
    "package.json",
    "README.md",
    "scripts",
    ...manifest.files.filter((f) => !f.startsWith("!")),
  ])
    cpSync(join(repoRoot, entry), join(copy, entry), { recursive: true });
  execFileSync(process.execPath, ["scripts/pack.js", "strip"], { cwd: copy });
  const name = execFileSync("npm", ["pack", "--ignore-scripts", "--silent"], { cwd: copy, encoding: "utf8" });
  return join(copy, name.trim());
}

/** Runs a shell line in `cwd`, failing the test with its output unless it exits 0. */
function sh(line: string, cwd: string): { stdout: string; stderr: string } {
  const done = spawnSync("sh", ["-c", line], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (done.status !== 0)
    throw new Error(`${line} exited ${done.status} in ${cwd}:\n${done.stdout}${done.stderr}`);
  return { stdout: done.stdout, stderr: done.stderr };
}

describe("the packed bass, installed into an empty project", () => {
  it("installs without a warning within its sizes, and init's printed steps and a Python run work", () => {
    const tarball = packCopy();
    const project = createTempDir({ "package.json": '{ "name": "bank-integrations", "private": true }\n' });
    const installed = sh(`npm install --save-dev --no-audit --no-fund ${tarball}`, project);
    expect(installed.stderr).not.toMatch(/warn/i);
    const packed = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" }).stdout.split("\n");
    expect(packed.filter((path) => /\/\.bass\/|^package\/(scripts|test|src)\//.test(path))).toEqual([]);
    expect(weight(join(project, "node_modules", "bass"))).toBeLessThan(bassBudget);
    expect(weight(join(project, "node_modules"))).toBeLessThan(installBudget);

    const made = sh("npx bass init demo", project).stdout;
    const steps = made
      .split("\n")
      .filter((line) => line.startsWith("  "))
      .map((line) => line.trim());
    expect(steps[0]).toBe("cd demo");
    const demo = join(project, "demo");
    for (const step of steps.slice(1)) sh(step, demo);

    writeFileSync(
      join(demo, "integrations", "hello.yaml"),
      'name: hello\nlanguage: python\non_success_hook: |\n  output.payload = {"hello": input.payload.name}\n',
    );
    writeFileSync(join(demo, "ada.json"), '{ "name": "Ada" }');
    const run = sh("npx bass run hello --input ada.json --json", demo);
    expect(JSON.parse(run.stdout).output.payload).toEqual({ hello: "Ada" });
  }, 180_000);
});
