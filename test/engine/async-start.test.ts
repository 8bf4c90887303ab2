import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import type { RunRecord } from "../../src/engine/types.js";
import type { HistoryStore } from "../../src/history/store.js";
import { createTempDir, defaultProjectFile, runCli, startDefinition } from "../_helpers.js";

/** For each record `bass run` writes: whether a running version of it was on disk at that moment. */
const seen = vi.hoisted((): { status: string; onDisk: string | undefined }[] => []);

vi.mock("../../src/history/store.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/history/store.js")>();
  return {
    ...original,
    createHistoryStore: (...args: Parameters<typeof original.createHistoryStore>): HistoryStore => {
      const store = original.createHistoryStore(...args);
      return {
        ...store,
        writeLine(id: string, line: string, request?: string) {
          const { status } = JSON.parse(line) as RunRecord;
          seen.push({ status, onDisk: statusOnDisk(args[0].dir, id) });
          store.writeLine(id, line, request);
        },
      };
    },
  };
});

/** The status of the last line for run `id` in the history folder's segments, read synchronously. */
function statusOnDisk(dir: string, id: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const lines = readdirSync(dir).flatMap((name) => readFileSync(join(dir, name), "utf8").split("\n"));
  const records = lines.filter((line) => line.includes(id)).map((line) => JSON.parse(line) as RunRecord);
  return records.at(-1)?.status;
}

const taxId = "123-45-6789";

describe("async runs (SPEC §4.9)", () => {
  it("start with a masked record (SPEC §5: every record is masked)", () => {
    const run = startDefinition(
      stringify({ name: "a", run_async: true, masks: [{ type: "INPUT", field: "tax_id" }] }),
      { payload: { tax_id: taxId } },
    );
    expect(JSON.stringify(run.started)).not.toContain(taxId);
  });

  it("answer at once, before before_hook has run", async () => {
    const run = startDefinition(
      stringify({ name: "a", run_async: true, before_hook: "console.log('before')" }),
      {
        payload: {},
      },
    );
    expect(run.accepted).toEqual({
      status: 202,
      headers: {},
      payload: { run_id: run.runId, status: "started" },
    });
    expect(run.started?.items.map((item) => item.kind)).toEqual(["INPUT"]);
    const done = await run.completion;
    expect(done.record.items.map((item) => item.kind)).toEqual(["INPUT", "LOG", "OUTPUT"]);
  });

  it("have their running record in the history folder while they run, with bass run", async () => {
    const dir = createTempDir({
      "bass.config.yaml": defaultProjectFile,
      "integrations/a.yaml": stringify({
        name: "a",
        run_async: true,
        before_hook: "const t = Date.now()\nwhile (Date.now() - t < 200) {}",
      }),
      "input.json": "{}",
    });
    seen.length = 0;
    expect((await runCli(["run", "a", "--input", "input.json"], { cwd: dir })).code).toBe(0);
    expect(seen).toEqual([
      { status: "running", onDisk: undefined },
      { status: "success", onDisk: "running" },
    ]);
  });
});
