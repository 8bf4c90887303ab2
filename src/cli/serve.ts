import { type LiveSystems, startSystems } from "../adapters/systems.js";
import type { Env } from "../definition/load.js";
import { createHistoryStore, resolveHistoryOptions } from "../engine/history.js";
import { BassError } from "../errors.js";
import { isLoopbackHost } from "../loopback.js";
import { idempotencyDir, type LoadedSet, loadServedSet, type ServedSet } from "../serve/app.js";
import { createAuthenticator } from "../serve/auth.js";
import { createBatch } from "../serve/batch.js";
import { createHandler } from "../serve/handler.js";
import { createIdempotencyStore } from "../serve/idempotency.js";
import { createLimiter } from "../serve/limiter.js";
import { startServer } from "../serve/server.js";
import type { Output } from "./output.js";
import { waitForStopSignal } from "./stop-signal.js";
import { watchTree } from "./watch-tree.js";

/** How long a stop waits for the requests and async runs in progress before it closes everything. */
const graceMs = 10_000;

export interface ServeCommandOptions {
  port?: number | undefined;
  host?: string | undefined;
  watch: boolean;
  insecure: boolean;
  project?: string | undefined;
  cwd: string;
  env: Env;
  /** Resolves when serve should stop (default: the process's first SIGINT or SIGTERM). */
  stopped?: Promise<unknown>;
  /** Called once serve listens, with its address (tests use it). */
  onListening?: (url: string) => void;
}

/** `bass serve`: the project's endpoints as a local REST API until stopped; exit 0 after a graceful stop. */
export async function runServe(options: ServeCommandOptions, output: Output): Promise<number> {
  const load = { cwd: options.cwd, env: options.env, projectDir: options.project };
  const first = loadServedSet(load);
  if (!first.ok)
    throw new BassError(
      "DEFINITION_INVALID",
      `the project cannot be served until these are fixed:\n${formatIssues(first)}`,
    );
  let set = first.set;
  for (const warning of set.warnings)
    output.stderr(`warning: ${warning.file}:${warning.line}:${warning.column}  ${warning.message}\n`);
  const host = options.host ?? set.settings.host;
  const port = options.port ?? set.settings.port;
  if (!isLoopbackHost(host) && set.settings.auth.type === "none" && !options.insecure) {
    throw new BassError(
      "USAGE",
      `refusing to serve on ${host} without auth: set serve.auth in the project file, or give --insecure`,
    );
  }

  const signal = options.stopped ? undefined : waitForStopSignal();
  let systems: LiveSystems = await startSecretly(set);
  const history = createHistoryStore(resolveHistoryOptions(set.projectDir, set.config.history, set.secrets));
  const idempotency = createIdempotencyStore({
    dir: idempotencyDir(set),
    ttlSeconds: set.settings.idempotencyTtlSeconds,
  });
  const limiter = createLimiter(set.settings.maxConcurrentRuns);
  // Log lines written together every 10 ms at most: one write for a burst of requests.
  const requestLog = createBatch<string>((lines) => output.stdout(`${lines.join("\n")}\n`), 10);
  const handle = createHandler({
    current: () => ({ set, adapters: systems.resolve }),
    history,
    idempotency,
    limiter,
    authenticate: createAuthenticator(set.settings.auth),
  });
  const server = await startServer({
    host,
    port,
    bodyLimitBytes: set.settings.bodyLimitBytes,
    handle,
    log: requestLog.add,
  }).catch(async (error: unknown) => {
    // The embedded mock core would keep the process alive, and the signal handler would swallow Ctrl-C.
    signal?.cancel();
    await systems.close();
    throw error;
  });
  output.stdout(`bass serve listening on ${server.url} (${describeEndpoints(set)})\n`);
  options.onListening?.(server.url);

  const keepLastGood = (why: string) =>
    output.stderr(`the changed project does not validate; still serving the last good set:\n${why}\n`);
  const watcher = options.watch
    ? watchProject(set, () => {
        let next: LoadedSet;
        try {
          next = loadServedSet(load);
        } catch (error) {
          // Some problems (a request_schema ajv cannot compile) are thrown, not found: they must not stop serve.
          keepLastGood(`  ${(error as Error).message}`);
          return;
        }
        if (!next.ok) {
          keepLastGood(formatIssues(next));
          return;
        }
        const systemsChanged =
          JSON.stringify([next.set.config.systems, next.set.config.mockcore]) !==
          JSON.stringify([set.config.systems, set.config.mockcore]);
        if (!systemsChanged) {
          set = next.set;
          output.stdout(`reloaded: ${describeEndpoints(set)}\n`);
        } else
          void restartSystems(next.set).catch((error: unknown) =>
            keepLastGood(`  ${(error as Error).message}`),
          );
      })
    : undefined;

  /** Swaps in the set once its systems have started; systems that cannot start leave the last good set serving. */
  async function restartSystems(next: ServedSet): Promise<void> {
    const old = systems;
    await limiter.idle();
    systems = await startSecretly(next);
    set = next;
    output.stdout(`reloaded: ${describeEndpoints(set)}\n`);
    await old.close();
  }

  await (options.stopped ?? signal?.received);
  watcher?.close();
  const stopBy = Date.now() + graceMs;
  await server.close(graceMs);
  // Async runs answered 202 long ago and go on in the background: they get what is left of the grace.
  await limiter.idle(Math.max(0, stopBy - Date.now()));
  requestLog.flush();
  await Promise.all([history.flush(), idempotency.flush()]);
  await systems.close();
  return 0;
}

/** The set's systems; an error starting or closing them has the set's secrets masked. */
function startSecretly(set: ServedSet): Promise<LiveSystems> {
  return startSystems(set.config, set.projectDir, { lasting: true, secrets: set.secrets });
}

function describeEndpoints(set: ServedSet): string {
  const count = set.definitions.reduce((sum, definition) => sum + (definition.endpoints?.length ?? 0), 0);
  return `${count} endpoint${count === 1 ? "" : "s"} of ${set.definitions.length} integration${set.definitions.length === 1 ? "" : "s"}`;
}

function formatIssues(loaded: Extract<LoadedSet, { ok: false }>): string {
  return loaded.issues
    .map((issue) => `  ${issue.file}:${issue.line}:${issue.column}  ${issue.message}  (${issue.rule})`)
    .join("\n");
}

/** Calls `reload` once a burst of changes to the project's files has settled. */
function watchProject(set: ServedSet, reload: () => void): { close(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watcher = watchTree(set.projectDir, (file) => {
    if (!/\.ya?ml$/.test(file)) return;
    clearTimeout(timer);
    timer = setTimeout(reload, 100);
  });
  return {
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
