import { createOutput } from "../../src/cli/output.js";
import { runServe } from "../../src/cli/serve.js";
import { createServeApp } from "../../src/serve/app.js";
import { stopSignal } from "../_helpers.js";

/** The handler of `bass serve` over a project, with the stores, limiter and systems serve gives it. */
export async function createProjectHandler(dir: string) {
  const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
  return { handle: app.handle, close: () => app.close() };
}

/** `bass serve` in this process on 127.0.0.1, port 0, with `env` as its environment; `stop` resolves with its exit code and how long the stop took. */
export async function startServeInProcess(dir: string, env: Record<string, string> = {}) {
  const lines: string[] = [];
  const { stopped, stop } = stopSignal();
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
