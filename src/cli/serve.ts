import type { Env } from "../definition/load.js";
import type { Engine } from "../engine/engine.js";
import { formatBroken, formatWarnings } from "../project/usable.js";
import { createServeApp, type ServeApp } from "../serve/app.js";
import { createBatch } from "../serve/batch.js";
import { createErrorLog } from "../serve/problem.js";
import type { ServedSet } from "../serve/served-set.js";
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
  /** The process's engine (see guardCellRejections); default: the project's own. */
  engine?: Engine | undefined;
}

/** `bass serve`: the project's endpoints as a local REST API until stopped; exit 0 after a graceful stop. */
export async function runServe(options: ServeCommandOptions, output: Output): Promise<number> {
  const signal = options.stopped ? undefined : waitForStopSignal();
  let app: ServeApp;
  // Every set's secrets: a run of a set --watch swapped out may still fail after the swap.
  const logError = createErrorLog(output.stderr, () => app.secrets());
  try {
    app = await createServeApp({
      cwd: options.cwd,
      env: options.env,
      projectDir: options.project,
      host: options.host,
      insecure: options.insecure,
      logError,
      engine: options.engine,
    });
  } catch (error) {
    // The signal handler would swallow Ctrl-C of a serve that never started.
    signal?.cancel();
    throw error;
  }
  const set = app.current();
  output.stderr(formatWarnings(set.warnings) + formatBroken(set.broken));
  // Log lines written in batches: one write for a burst of requests.
  const requestLog = createBatch<string>((lines) => output.stdout(`${lines.join("\n")}\n`), 10);
  const server = await startServer({
    host: options.host ?? set.settings.host,
    port: options.port ?? set.settings.port,
    bodyLimitBytes: set.settings.bodyLimitBytes,
    headersTimeoutMs: set.settings.headersTimeoutMs,
    requestTimeoutMs: set.settings.requestTimeoutMs,
    maxConnections: set.settings.maxConnections,
    handle: app.handle,
    log: requestLog.add,
    logError,
  }).catch(async (error: unknown) => {
    // The embedded mock core would keep the process alive, and the signal handler would swallow Ctrl-C.
    signal?.cancel();
    await app.close();
    throw error;
  });
  output.stdout(
    `bass serve listening on ${server.url} (${describeEndpoints(set)})\n${describeRoutes(set, server.url)}`,
  );
  app.startSchedules();
  options.onListening?.(server.url);

  const watcher = options.watch
    ? watchProject(set, async () => {
        const outcome = await app.reload();
        if (outcome.ok) {
          output.stdout(`reloaded: ${describeEndpoints(outcome.set)}\n`);
          output.stderr(formatBroken(outcome.set.broken));
        } else
          output.stderr(
            `the changed project does not validate; still serving the last good set:\n${outcome.why}\n`,
          );
      })
    : undefined;

  await (options.stopped ?? signal?.received);
  watcher?.close();
  const stopBy = Date.now() + graceMs;
  // Event streams never end by themselves: they end first, whole, and the requests left get the grace.
  app.endStreams();
  await server.close(graceMs);
  try {
    // Async runs answered 202 long ago and go on in the background: they get what is left of the grace.
    await app.close(Math.max(0, stopBy - Date.now()));
  } finally {
    requestLog.flush();
  }
  output.stdout("bass serve stopped\n");
  return 0;
}

/** Each route (method, path → integration), then the run history page's and admin routes' addresses. */
function describeRoutes(set: ServedSet, url: string): string {
  const routes = set.definitions.flatMap((definition) =>
    (definition.endpoints ?? []).map(
      (endpoint) => [`${endpoint.method} ${endpoint.path}`, definition.name] as const,
    ),
  );
  const width = Math.max(0, ...routes.map(([route]) => route.length));
  const lines = routes.map(([route, name]) => `  ${route.padEnd(width)}  → ${name}\n`);
  return `${lines.join("")}  run history page: ${url}/_bass/\n  admin: ${url}/_bass/health, /_bass/runs, /_bass/openapi.json\n`;
}

function describeEndpoints(set: ServedSet): string {
  const count = set.definitions.reduce((sum, definition) => sum + (definition.endpoints?.length ?? 0), 0);
  return `${count} endpoint${count === 1 ? "" : "s"} of ${set.definitions.length} integration${set.definitions.length === 1 ? "" : "s"}`;
}

/** Calls `reload` once a burst of changes to the project's files has settled. */
function watchProject(set: ServedSet, reload: () => void): { close(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watcher = watchTree(set.project.dir, (file) => {
    // Definitions, the project file, and the shared modules it names.
    if (!/\.(ya?ml|[cm]?js)$/.test(file)) return;
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
