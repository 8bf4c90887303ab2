import { startSystems } from "../../src/adapters/systems.js";
import { createOutput } from "../../src/cli/output.js";
import { runServe } from "../../src/cli/serve.js";
import { createHistoryStore, resolveHistoryOptions } from "../../src/engine/history.js";
import { idempotencyDir, loadServedSet } from "../../src/serve/app.js";
import { createAuthenticator } from "../../src/serve/auth.js";
import { createHandler } from "../../src/serve/handler.js";
import { createIdempotencyStore } from "../../src/serve/idempotency.js";
import { createLimiter } from "../../src/serve/limiter.js";

/** The handler of SPEC §7 over a project, with the store, limiter and systems `bass serve` gives it. */
export async function createProjectHandler(dir: string) {
  const loaded = loadServedSet({ cwd: dir, env: {}, projectDir: dir });
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  const { set } = loaded;
  const systems = await startSystems(set.config, set.projectDir);
  const history = createHistoryStore(resolveHistoryOptions(set.projectDir, set.config.history));
  const handle = createHandler({
    current: () => ({ set, adapters: systems.resolve }),
    history,
    idempotency: createIdempotencyStore({ dir: idempotencyDir(set), ttlSeconds: 60 }),
    limiter: createLimiter(set.settings.maxConcurrentRuns),
    authenticate: createAuthenticator(set.settings.auth),
  });
  return {
    handle,
    async close() {
      await history.flush();
      await systems.close();
    },
  };
}

/** `bass serve` in this process on 127.0.0.1, port 0, with `env` as its environment; `stop` resolves with its exit code and how long the stop took. */
export async function startServeInProcess(dir: string, env: Record<string, string> = {}) {
  const lines: string[] = [];
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let onListening: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => {
    onListening = resolve;
  });
  const output = createOutput({
    color: false,
    write: {
      stdout: (text) => void lines.push(text),
      stderr: (text) => void lines.push(text),
      colorLevel: 0,
    },
  });
  const exit = runServe(
    {
      ...{ port: 0, host: "127.0.0.1", watch: false, insecure: false },
      ...{ project: dir, cwd: dir, env, stopped, onListening },
    },
    output,
  );
  const url = await Promise.race([
    listening,
    exit.then((code) => Promise.reject(new Error(`serve exited ${code}`))),
  ]);
  return {
    port: Number(new URL(url).port),
    lines,
    async stop() {
      const at = performance.now();
      stop();
      const code = await exit;
      return { code, ms: performance.now() - at };
    },
  };
}
