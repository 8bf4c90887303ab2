import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { RunRecord } from "../../src/engine/types.js";
import { createServeApp } from "../../src/serve/app.js";
import { createTempDir } from "../_helpers.js";

const level = `name: level
http_api: false
endpoints: [{ method: POST, path: /level }]
service_requests:
  - formula_variable: core
    system: core
    service_name: get-person
    field_mappings:
      - { field: service_path, literal: /core/v1/persons/P000001 }
      - { field: method, literal: GET }
on_success_hook: |
  const n = input.payload.n
  const below = n < 9 ? (await callint('level', { n: n + 1 })).payload : { deepest: n }
  output.payload = { deepest: below.deepest, person: core.response.payload.personId }
`;

const top = `name: top
endpoints: [{ method: POST, path: /chain }]
on_success_hook: "output.payload = (await callint('level', { n: 0 })).payload"
`;

describe("callint under bass serve", () => {
  it.each([0, 2])(
    "runs a chain 10 deep, each calling the embedded mock core, with %i worker threads",
    async (workers) => {
      const dir = createTempDir({
        "bass.config.yaml": `systems:\n  core:\n    adapter: http\n    base_url: "mockcore:"\nlimits:\n  cell_timeout_ms: 20000\nserve:\n  workers: ${workers}\n`,
        "integrations/level.yaml": level,
        "integrations/top.yaml": top,
      });
      const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
      onTestFinished(() => app.close());
      const send = (url: string, body: unknown) =>
        app.handle({
          method: "POST",
          url,
          headers: { host: "127.0.0.1:3000", "content-type": "application/json" },
          body: Buffer.from(JSON.stringify(body)),
        });
      const answer = await send("/chain", {});
      expect(answer.status).toBe(200);
      expect(JSON.parse(Buffer.from(answer.body).toString())).toEqual({ deepest: 9, person: "P000001" });
      // http_api: false gives level no endpoint, though it declares one.
      expect((await send("/level", { n: 0 })).status).toBe(404);
      await app.history.flush();
      const runs = await app.history.list();
      expect(runs).toHaveLength(11);
      expect(runs.every((run) => run.status === "success")).toBe(true);
      const topRun = runs.find((run) => run.integration === "top") as RunRecord;
      // Each child names its parent: the chain from the top run down is 10 long.
      let depth = 0;
      for (
        let run = runs.find((one) => one.parent_run === topRun.id);
        run;
        run = runs.find((one) => one.parent_run === run?.id)
      )
        depth++;
      expect(depth).toBe(10);
    },
    30_000,
  );
});

describe("an async callint child under bass serve", () => {
  it.each([0, 2])(
    "does not hold its parent's answer, and its record comes when it ends (%i workers)",
    async (workers) => {
      const dir = createTempDir();
      const gate = join(dir, "open-the-gate");
      writeFileSync(
        join(dir, "gated.mjs"),
        `import { existsSync } from "node:fs";\nexport async function execute() {\n  while (!existsSync(${JSON.stringify(gate)})) await new Promise((resolve) => setTimeout(resolve, 20));\n  return { success: true, status: 200, payload: { done: true }, messages: [] };\n}\n`,
      );
      writeFileSync(
        join(dir, "bass.config.yaml"),
        `systems:\n  gated:\n    adapter: ./gated.mjs\nlimits:\n  run_timeout_ms: 20000\nserve:\n  workers: ${workers}\n`,
      );
      mkdirSync(join(dir, "integrations"));
      writeFileSync(
        join(dir, "integrations/notify.yaml"),
        "name: notify\nhttp_api: false\nservice_requests:\n  - { formula_variable: sent, system: gated }\n",
      );
      writeFileSync(
        join(dir, "integrations/order.yaml"),
        "name: order\nendpoints: [{ method: POST, path: /orders }]\non_success_hook: |\n  const child = await callint('notify', {}, { mode: 'async' })\n  output.payload = { child: child.status, run: child.payload.run_id }\n",
      );
      const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
      onTestFinished(() => app.close());
      const answer = await app.handle({
        method: "POST",
        url: "/orders",
        headers: { host: "127.0.0.1:3000", "content-type": "application/json" },
        body: Buffer.from("{}"),
      });
      // The child waits at the gate: the parent has answered all the same.
      const { child, run } = JSON.parse(Buffer.from(answer.body).toString());
      expect([answer.status, child]).toEqual([200, 202]);
      writeFileSync(gate, "");
      let record: RunRecord | undefined;
      for (let tries = 0; tries < 250 && record?.status !== "success"; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        await app.history.flush();
        record = await app.history.read(run);
      }
      expect(record).toMatchObject({ integration: "notify", status: "success", parent_run: answer.runId });
    },
    20_000,
  );
});
