import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRunId } from "../../src/engine/run-id.js";
import { createHistoryStore, resolveHistoryOptions } from "../../src/history/store.js";
import { systemErrorMessage, systemReason } from "../../src/system-error.js";
import { createTempDir, runCli } from "../_helpers.js";

const bin = join(import.meta.dirname, "../../bin/bass.cjs");
const project = () =>
  createTempDir({
    "bass.config.yaml": "systems: {}\n",
    "integrations/good.yaml": 'name: good\non_success_hook: "output.payload = { ok: true }"\n',
    "input.json": "{}",
  });

describe("errors in the user's words", () => {
  it.each([
    [
      ["--project", "bass.config.yaml"],
      "bass: bass.config.yaml is a file; --project takes the folder that holds bass.config.yaml: --project .\n",
    ],
    [
      ["--project", "nowhere"],
      "bass: no such folder: nowhere; --project takes the folder that holds bass.config.yaml\n",
    ],
    [
      ["--project", "integrations"],
      "bass: no bass.config.yaml in integrations; --project takes the folder that holds bass.config.yaml\n",
    ],
  ])("say what --project takes: %j", async (args, stderr) => {
    const result = await runCli(["run", "good", "--input", "input.json", ...args], { cwd: project() });
    expect([result.code, result.stderr]).toEqual([2, stderr]);
  });

  it("name a missing input file without the system's text", async () => {
    const result = await runCli(["run", "good", "--input", "nothere.json"], { cwd: project() });
    expect([result.code, result.stderr]).toEqual([
      2,
      "bass: cannot read the input file nothere.json: no such file or folder\n",
    ]);
  });

  it("make the folder a recording is written into", async () => {
    const dir = project();
    const result = await runCli(
      ["run", "good", "--input", "input.json", "--record", "new/folder/good.yaml"],
      {
        cwd: dir,
      },
    );
    expect(result.code).toBe(0);
    expect(existsSync(join(dir, "new/folder/good.yaml"))).toBe(true);
  });

  it("end quietly when the reader of stdout goes away", async () => {
    const dir = project();
    await runCli(["run", "good", "--input", "input.json", "--json"], { cwd: dir });
    // More than a pipe holds, so that bass is still writing when the reader goes.
    const store = createHistoryStore(resolveHistoryOptions(dir));
    const [record] = await store.list({ limit: 1 });
    if (!record) throw new Error("no run recorded");
    const padding = "x".repeat(2000);
    for (let run = 0; run < 300; run++) store.write({ ...record, id: createRunId(), labels: [padding] });
    await store.flush();
    const child = spawn(process.execPath, [bin, "history", "--json", "--limit", "1000"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    // A reader that takes one chunk and closes, as `head -c 10` does.
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("turn the system's codes into words, with the path a temp file stood for", () => {
    const error = Object.assign(
      new Error("ENOENT: no such file or directory, open '/p/out/a.yaml.4242-0-7.tmp'"),
      {
        code: "ENOENT",
        path: "/p/out/a.yaml.4242-0-7.tmp",
      },
    );
    expect(systemErrorMessage(error, "/p")).toBe("out/a.yaml: no such file or folder");
    expect(systemReason(error)).toBe("no such file or folder");
    expect(systemErrorMessage(new Error("plain"), "/p")).toBeUndefined();
    expect(systemReason(new Error("plain"))).toBe("plain");
  });
});

describe("where a command finds its project and environment", () => {
  it("takes BASS_PROJECT for --project, and --project over it", async () => {
    const parent = createTempDir({
      "a/bass.config.yaml": "systems: {}\n",
      "a/integrations/one.yaml": "name: one\n",
      "b/bass.config.yaml": "systems: {}\n",
      "b/integrations/two.yaml": "name: two\n",
    });
    const fromEnv = await runCli(["list", "--json"], { cwd: parent, env: { BASS_PROJECT: "a" } });
    expect(JSON.parse(fromEnv.stdout).map((item: { name: string }) => item.name)).toEqual(["one"]);
    const given = await runCli(["list", "--json", "--project", "b"], {
      cwd: parent,
      env: { BASS_PROJECT: "a" },
    });
    expect(JSON.parse(given.stdout).map((item: { name: string }) => item.name)).toEqual(["two"]);
  });

  it("reads --env-file files, later over earlier, the environment over both", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      // Values come out masked: their lengths tell which file each came from.
      "integrations/env.yaml":
        "name: env\non_success_hook: \"output.payload = { a: '${env:A}'.length, b: '${env:B}'.length, c: '${env:C}'.length }\"\n",
      "one.env": "A=one-a\nB=one-bb\nC=one-ccc\n",
      "two.env": "B=two-bbbb\nC=two-ccccc\n",
    });
    const run = await runCli(["run", "env", "--env-file", "one.env", "--env-file", "two.env", "--json"], {
      cwd: dir,
      env: { C: "env-cccccccccc" },
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).output.payload).toEqual({ a: 5, b: 8, c: 14 });
    const history = await runCli(["history", "--json", "--env-file", "one.env", "--env-file", "two.env"], {
      cwd: dir,
      env: { C: "env-cccccccccc" },
    });
    expect(history.stdout).not.toMatch(/one-a|one-bb|two-bbbb|env-cccccccccc/);
    const missing = await runCli(["list", "--env-file", "nope.env"], { cwd: dir });
    expect([missing.code, missing.stderr]).toEqual([
      2,
      "bass: cannot read the env file nope.env: no such file or folder\n",
    ]);
  });
});

describe("bass test given test files outside the current folder's project", () => {
  it("finds their project from the first file upwards, as validate does", async () => {
    const parent = createTempDir({
      "shop/bass.config.yaml": "systems: {}\n",
      "shop/integrations/a.yaml": 'name: a\non_success_hook: "output.payload = 1"\n',
      "shop/tests/a.test.yaml":
        "integration: a\ncases:\n  - name: one\n    expect: { output: { payload: 1 } }\n",
    });
    const result = await runCli(["test", "shop/tests/a.test.yaml"], { cwd: parent });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/1 passed, 0 failed/);
  });
});
