import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir, runCli } from "../_helpers.js";

const samples = join(import.meta.dirname, "../../samples");

function createProject() {
  const integration = (name: string, hook: string) =>
    `name: ${name}\nbefore_hook: ${JSON.stringify(hook)}\non_success_hook: "output.payload = { ok: true }"\n`;
  return createTempDir({
    "bass.config.yaml": "systems: {}\nlimits:\n  cell_timeout_ms: 1000\n  cell_memory_mb: 64\n",
    "integrations/grow.yaml": integration(
      "grow",
      "const keep = []; while (true) keep.push(new Array(1e5).fill({ x: 1 }))",
    ),
    "integrations/ok.yaml": integration("ok", "null"),
    "in.json": "{}",
  });
}

describe("bass run --isolate (SPEC §13.1)", () => {
  it("runs in a worker thread, and a heap that outgrows limits.cell_memory_mb fails the run, not bass", async () => {
    const dir = createProject();
    const grown = await runCli(["run", "grow", "--input", "in.json", "--isolate", "--json"], { cwd: dir });
    expect(grown.code).toBe(1);
    const report = JSON.parse(grown.stdout);
    expect(report).toMatchObject({ status: "failure", history: { integration: "grow", trigger: "cli" } });
    expect(report.history.items).toEqual([
      expect.objectContaining({ kind: "FAILURE", error: expect.objectContaining({ code: "worker_died" }) }),
      expect.objectContaining({ kind: "OUTPUT", data: expect.objectContaining({ status: 500 }) }),
    ]);
    expect(report.output).toMatchObject({ status: 500, payload: { error: { code: "worker_died" } } });
    const ok = await runCli(["run", "ok", "--input", "in.json", "--isolate", "--json"], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).output).toEqual({ status: 200, headers: {}, payload: { ok: true } });
    const listed = await runCli(["history", "--json"], { cwd: dir });
    expect(
      JSON.parse(listed.stdout)
        .map((record: { integration: string }) => record.integration)
        .sort(),
    ).toEqual(["grow", "ok"]);
  });

  it("answers a sample with its mock file as a run on bass's own thread does", async () => {
    const argv = [
      "run",
      "customers.create",
      "--project",
      samples,
      "--input",
      join(samples, "inputs/customers.create.json"),
      "--mock",
      join(samples, "mocks/customers.create.yaml"),
      "--json",
    ];
    const dir = createTempDir();
    const isolated = await runCli([...argv, "--isolate"], { cwd: dir });
    const inThread = await runCli(argv, { cwd: dir });
    expect(isolated.code).toBe(0);
    expect(JSON.parse(isolated.stdout).output).toEqual(JSON.parse(inThread.stdout).output);
  });

  it("refuses --record with --isolate", async () => {
    const result = await runCli(["run", "ok", "--input", "in.json", "--isolate", "--record", "c.yaml"], {
      cwd: createProject(),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--record cannot be used with --isolate");
  });
});
