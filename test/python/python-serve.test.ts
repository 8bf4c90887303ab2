import { describe, expect, it, onTestFinished } from "vitest";
import type { RunRecord } from "../../src/engine/record.js";
import { createServeApp } from "../../src/serve/app.js";
import { createTempDir } from "../_helpers.js";

const stuck = `name: stuck
language: python
endpoints: [{ method: POST, path: /stuck }]
on_success_hook: |
  output.payload = sum(range(10**12))
`;
const quick = `name: quick
language: python
endpoints: [{ method: POST, path: /quick }]
on_success_hook: |
  output.payload = {"ok": True}
`;

describe("Python integrations in serve's worker threads", () => {
  it("ends a worker stuck in one long call past the run's limits: 504, and the next run is answered", async () => {
    const dir = createTempDir({
      "bass.config.yaml":
        "systems: {}\nlimits:\n  cell_timeout_ms: 200\n  run_timeout_ms: 300\nserve:\n  workers: 1\n",
      "integrations/stuck.yaml": stuck,
      "integrations/quick.yaml": quick,
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
    onTestFinished(() => app.close());
    const post = (url: string) =>
      app.handle({ method: "POST", url, headers: { host: "127.0.0.1:3000" }, body: new Uint8Array() });
    const stopped = await post("/stuck");
    expect(stopped.status).toBe(504);
    await app.history.flush();
    const record = (await app.history.read(stopped.runId as string)) as RunRecord;
    expect(record.items).toEqual([
      expect.objectContaining({
        kind: "FAILURE",
        error: {
          code: "run_timeout",
          message:
            "the run ran past its time limit inside a call nothing could interrupt: its worker thread was ended and replaced",
        },
      }),
    ]);
    const after = await post("/quick");
    expect([after.status, JSON.parse(Buffer.from(after.body).toString())]).toEqual([200, { ok: true }]);
  }, 30_000);
});
