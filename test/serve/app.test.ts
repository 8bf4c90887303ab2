import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createServeApp } from "../../src/serve/app.js";
import { createTempDir } from "../_helpers.js";

const projectWith = (variable: string) =>
  `systems:\n  transform:\n    adapter: echo\n    headers: { X-Key: "\${env:${variable}}" }\n`;
const integration = "name: a\nendpoints:\n  - { method: GET, path: /a }\n";

describe("createServeApp", () => {
  it("swaps in a changed project on reload and keeps masking the secrets of the sets before it", async () => {
    const dir = createTempDir({
      "bass.config.yaml": projectWith("FIRST"),
      "integrations/a.yaml": integration,
    });
    const env = { FIRST: "first-secret", SECOND: "second-secret" };
    const app = await createServeApp({ cwd: dir, env, projectDir: dir });
    onTestFinished(() => app.close());
    expect([...app.secrets()]).toEqual(["first-secret"]);

    writeFileSync(join(dir, "bass.config.yaml"), projectWith("SECOND"));
    const outcome = await app.reload();
    expect(outcome.ok).toBe(true);
    expect(app.current().project.secrets).toEqual(["second-secret"]);
    expect([...app.secrets()].sort()).toEqual(["first-secret", "second-secret"]);
  });

  it("keeps the last good set when the changed project does not validate", async () => {
    const dir = createTempDir({
      "bass.config.yaml": projectWith("FIRST"),
      "integrations/a.yaml": integration,
    });
    const app = await createServeApp({ cwd: dir, env: { FIRST: "first-secret" }, projectDir: dir });
    onTestFinished(() => app.close());
    const first = app.current();
    writeFileSync(join(dir, "integrations/a.yaml"), "name: a\nnot_a_key: 1\n");
    const outcome = await app.reload();
    expect(outcome).toMatchObject({ ok: false, why: expect.stringContaining("integrations/a.yaml") });
    expect(app.current()).toBe(first);
  });
});

describe("a broken definition", () => {
  const good =
    'name: good\nendpoints:\n  - { method: GET, path: /good }\non_success_hook: "output.payload = { ok: true }"\n';
  const broken = "name: broken\nendpoints:\n  - { method: GET, path: /broken }\nnot_a_key: 1\n";
  const host = { host: "127.0.0.1:3000" };
  const get = (url: string) => ({ method: "GET", url, headers: host, body: new Uint8Array() });

  it("blocks only itself: the others are served, and health says degraded", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nserve:\n  workers: 0\n",
      "integrations/good.yaml": good,
      "integrations/broken.yaml": broken,
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
    onTestFinished(() => app.close());
    expect(app.current().broken).toEqual(["integrations/broken.yaml"]);
    expect(String((await app.handle(get("/good"))).body)).toBe('{"ok":true}');
    expect((await app.handle(get("/broken"))).status).toBe(404);
    expect(JSON.parse(String((await app.handle(get("/_bass/health"))).body))).toMatchObject({
      status: "degraded",
      broken: ["integrations/broken.yaml"],
    });
  });

  it("that leaves nothing to serve stops serve with its findings", async () => {
    const dir = createTempDir({ "bass.config.yaml": "systems: {}\n", "integrations/broken.yaml": broken });
    await expect(createServeApp({ cwd: dir, env: {}, projectDir: dir })).rejects.toThrow(/not_a_key/);
  });
});

describe("a request_schema ajv cannot compile", () => {
  it("leaves its definition out, and serves the others", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nserve:\n  workers: 0\n",
      "integrations/good.yaml":
        'name: good\nendpoints:\n  - { method: GET, path: /good }\non_success_hook: "output.payload = { ok: true }"\n',
      "integrations/elsewhere.yaml":
        "name: elsewhere\nendpoints:\n  - { method: POST, path: /elsewhere }\nrequest_schema: { $ref: 'other.json#/defs/x' }\n",
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
    onTestFinished(() => app.close());
    expect(app.current().broken).toEqual(["integrations/elsewhere.yaml"]);
    expect(app.current().brokenIssues[0]?.message).toContain("elsewhere: request_schema cannot be compiled");
    const get = { method: "GET", url: "/good", headers: { host: "127.0.0.1:3000" }, body: new Uint8Array() };
    expect(String((await app.handle(get)).body)).toBe('{"ok":true}');
  });
});
