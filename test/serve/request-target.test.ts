import { describe, expect, it } from "vitest";
import { echoAdapter } from "../../src/adapters/echo.js";
import { createHistoryStore, resolveHistoryOptions } from "../../src/engine/history.js";
import { idempotencyDir, loadServedSet } from "../../src/serve/app.js";
import { createAuthenticator } from "../../src/serve/auth.js";
import { createHandler } from "../../src/serve/handler.js";
import { createIdempotencyStore } from "../../src/serve/idempotency.js";
import { createLimiter } from "../../src/serve/limiter.js";
import { startServer } from "../../src/serve/server.js";
import { createTempDir } from "../_helpers.js";
import { sendRaw } from "./_raw-http.js";

function createTargetHandler() {
  const dir = createTempDir({
    "bass.config.yaml": "{}\n",
    "integrations/a.yaml": "name: a\nendpoints:\n  - { method: GET, path: /a }\n",
  });
  const loaded = loadServedSet({ cwd: dir, env: {}, projectDir: dir });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const { set } = loaded;
  return createHandler({
    current: () => ({ set, adapters: () => echoAdapter }),
    history: createHistoryStore(resolveHistoryOptions(set.projectDir, set.config.history)),
    idempotency: createIdempotencyStore({ dir: idempotencyDir(set), ttlSeconds: 60 }),
    limiter: createLimiter(4),
    authenticate: createAuthenticator(set.settings.auth),
  });
}

describe("the request target", () => {
  it.each([
    ["an absolute-form target that is no URL", "http://[/a", 400],
    ["an absolute-form target with a bad port", "http://a:b@[::1]:99999/a", 400],
    ["an absolute-form target with a bad host", "http://%zz/a", 400],
    ["a path that starts with // (a path, never a host)", "//127.0.0.1/_bass/health", 404],
    ["a path that starts with // and names an endpoint", "//x/a", 404],
    ["an absolute URL (read as its path)", "http://127.0.0.1/a", 200],
  ])("%s is answered, by the handler and over a socket", async (_name, target, status) => {
    const handle = createTargetHandler();
    const handled = await handle({ method: "GET", url: target, headers: {}, body: new Uint8Array() });
    expect(handled.status).toBe(status);
    if (status >= 400) expect(handled.headers["content-type"]).toBe("application/problem+json");

    const server = await startServer({
      host: "127.0.0.1",
      port: 0,
      bodyLimitBytes: 1024,
      handle,
      log: () => {},
    });
    try {
      const port = Number(new URL(server.url).port);
      const request = `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
      const answer = await sendRaw(port, Buffer.from(request, "latin1"));
      expect(answer).toMatchObject({ kind: "response", status });
    } finally {
      await server.close();
    }
  });
});
