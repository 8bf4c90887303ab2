import { join } from "node:path";
import type { AdapterResolver } from "../adapters/adapter.js";
import { mayCall } from "../definition/cells.js";
import type { RunInput } from "../engine/types.js";
import { BassError } from "../errors.js";
import { createHeapKeeper, heapGrowthToCollect } from "../heap.js";
import { sealRequest } from "../history/kept-request.js";
import type { HistoryStore } from "../history/store.js";
import { hasPython } from "../pool/python-tasks.js";
import { createRemoteHandler, type RemoteHandlerOptions } from "../pool/remote-handler.js";
import { createRunPool, type RunPool, type RunPoolOptions } from "../pool/run-pool.js";
import { createProjectAdapters, type ProjectAdapters } from "../project/adapters.js";
import { openHistory } from "../project/open.js";
import type { Project } from "../project/project.js";
import { formatIssueList, issuesOf } from "../project/usable.js";
import { projectVaults } from "../project/vaults.js";
import { withHeapKept } from "../runner/heap-kept.js";
import type { ChildRecord } from "../runner/messages.js";
import { withPythonApart } from "../runner/python-apart.js";
import { createTaskPlace } from "../runner/run-task.js";
import { createThreadRunner } from "../runner/thread-runner.js";
import { createSealer } from "../state/seal.js";
import { readStateKey } from "../state/state-key.js";
import { tightenStateDir } from "../state/tighten.js";
import { assertSafeBinding, createAuthenticator } from "./auth.js";
import type { HandledResponse, ServeContext, ServeRequest, ServeRuns } from "./context.js";
import { createHandler, createScheduledRunner } from "./handler.js";
import { createIdempotencyStore, type IdempotencyStore } from "./idempotency.js";
import { createLimiter, type Limiter } from "./limiter.js";
import { createErrorLog, type LogError } from "./problem.js";
import { createRunEvents } from "./run-events.js";
import { startSchedules } from "./schedules.js";
import { idempotencyDir, type LoadServedSetOptions, loadServedSet, type ServedSet } from "./served-set.js";

export interface ServeAppOptions extends LoadServedSetOptions {
  /** The host serve will bind (`--host`); a non-loopback host needs auth, or `insecure`. */
  host?: string | undefined;
  insecure?: boolean;
  /** Adapters that answer every system instead of the project's own (tests). */
  adapters?: AdapterResolver;
  /** The idempotency store's clock (tests). */
  clock?: () => number;
  /** Worker threads that run the integrations (default: `serve.workers`, else one per core up to 4; 0: none). */
  workers?: number;
  /** Where an unexpected error's stack goes, masked, before its 500. */
  logError?: LogError;
  /** Where serve's warnings go (default: stderr). */
  warn?: (message: string) => void;
}

/** What a reload did: swapped in the changed set, or kept the last good one and says why. */
export type ReloadOutcome = { ok: true; set: ServedSet } | { ok: false; why: string };

export interface ServeApp {
  handle(request: ServeRequest): Promise<HandledResponse>;
  history: HistoryStore;
  idempotency: IdempotencyStore;
  limiter: Limiter;
  /** The set serving now. */
  current(): ServedSet;
  /** The secrets of every set served since the start: a run of an earlier set may still be going on. */
  secrets(): Iterable<string>;
  /** Starts running the set's scheduled integrations (serve does once it listens), and again after reloads. */
  startSchedules(): void;
  /** Ends the run history page's event streams, before the server closes its connections. */
  endStreams(): void;
  /** Loads the project again (`--watch`); a set that does not validate, or whose systems fail, is not swapped in. */
  reload(): Promise<ReloadOutcome>;
  /** Waits up to `graceMs` for the runs in progress (async ones too), then flushes the stores and stops the systems. */
  close(graceMs?: number): Promise<void>;
}

/** Serve without a socket: the project loaded, its systems started, history and idempotency stores opened. */
export async function createServeApp(options: ServeAppOptions): Promise<ServeApp> {
  const first = await loadServedSet(options);
  if (!first.ok)
    throw new BassError(
      "DEFINITION_INVALID",
      `the project cannot be served until these are fixed:\n${formatIssueList(first.issues)}`,
    );
  // A broken definition blocks only itself, unless it leaves nothing to serve.
  if (first.set.definitions.length === 0 && first.set.broken.length > 0)
    throw new BassError(
      "DEFINITION_INVALID",
      `the project cannot be served until these are fixed:\n${formatIssueList(first.set.brokenIssues)}`,
    );
  let set = first.set;
  assertSafeBinding(options.host ?? set.settings.host, set.settings.auth, options.insecure ?? false);
  // Before anything writes there: older state is made private, and what killed writes left is removed.
  await tightenStateDir(join(set.project.dir, ".bass"));
  const stateKey = await readStateKey(set.project.dir, options.env);
  const sealer = createSealer(stateKey);
  let systems = await startSystemsOf(set, options);
  let vaults = projectVaults(set.project, options.env);
  const events = createRunEvents();
  const history = events.observe(openHistory(set.project));
  // A project that keeps no payloads at rest keeps no requests either, unless it asks to.
  const historyConfig = set.project.config.history;
  const keepRequests = historyConfig?.keep_requests ?? historyConfig?.store_payloads ?? true;
  // Under bearer or basic auth the Authorization header is serve's own credential: not kept, and a re-run
  // goes with the credential of whoever asks for it.
  const unkeptHeaders = set.settings.auth.type === "none" ? [] : ["authorization"];
  const warn =
    options.warn ?? ((message: string) => process.stderr.write(`bass serve: warning: ${message}\n`));
  const idempotency = createIdempotencyStore({
    dir: idempotencyDir(set),
    ttlSeconds: set.settings.idempotencyTtlSeconds,
    clock: options.clock,
    sealer,
    warn,
  });
  const limiter = createLimiter(set.settings.maxConcurrentRuns);
  let reloads: Promise<unknown> = Promise.resolve();
  const servedSecrets = new Set(set.project.secrets);
  const logError =
    options.logError ??
    createErrorLog(
      (text) => process.stderr.write(text),
      () => servedSecrets,
    );
  const keepRequest = keepRequests
    ? (runId: string, input: RunInput) => sealRequest(sealer, runId, input, unkeptHeaders)
    : undefined;
  const writeLaterChild = (child: ChildRecord) => history.writeLine(child.runId, child.line);
  // Fixed adapters (tests) are functions of this thread: their runs stay here.
  const workerCount = options.adapters ? 0 : (options.workers ?? set.settings.workers);
  const poolOf = (workers: number) =>
    createRunPool({
      project: set.project,
      cwd: options.cwd,
      env: options.env,
      workers,
      requestSchemas: true,
      stateKey: keepRequests ? stateKey : undefined,
      unkeptHeaders,
      secrets: () => servedSecrets,
      logError,
      onWorkerReplaced: (reason) => warn(`a worker thread was replaced: ${reason}`),
      ...callsFromWorkers(set.project, history, writeLaterChild, () => ({
        project: set.project,
        adapters: systems.adapters,
        vaults,
      })),
    });
  // What a run left on this thread (its answer, its history line; with no workers, all it made) is given
  // back once it is much (docs/architecture.md#cells-that-cannot-hang-serve-leak-memory-or-reach-the-host).
  const keepHeap = createHeapKeeper(heapGrowthToCollect);
  const pool = workerCount > 0 ? withHeapKept(poolOf(workerCount), keepHeap) : undefined;
  // With no workers, Python runs still go to one, made on the first (see withPythonApart).
  let pythonPool: RunPool | undefined;
  /** What runs the set serving now: the pool (whose workers open each version), or this thread. */
  const runsOf = async (version: number): Promise<ServeRuns> => {
    if (pool) {
      await systems.adapters.mockcoreUrl();
      return { runner: pool, version, mockcoreUrl: () => systems.adapters.currentMockcoreUrl() };
    }
    const { resolve } = systems;
    const place = createTaskPlace(set.project, { resolverFor: () => resolve, vaults, seal: keepRequest });
    const secrets = () => servedSecrets;
    const here = createThreadRunner({ ...place, onLaterChild: writeLaterChild, secrets });
    // Fixed adapters (tests) are functions of this thread: their runs, Python ones too, stay here.
    if (options.adapters)
      return { runner: withHeapKept(here, keepHeap), version, mockcoreUrl: () => undefined };
    // A Python run's worker calls the mock core this thread started.
    if (hasPython(set.project)) await systems.adapters.mockcoreUrl();
    return {
      runner: withHeapKept(
        withPythonApart(here, () => (pythonPool ??= poolOf(1))),
        keepHeap,
      ),
      version,
      mockcoreUrl: () => systems.adapters.currentMockcoreUrl(),
    };
  };
  let runs = await runsOf(1);
  // A reload's new thread runner takes over; the one it replaces still has async children to wait for.
  const retired: Promise<void>[] = [];
  const swapRuns = async () => {
    const old = runs;
    runs = await runsOf(old.version + 1);
    if (old.runner !== runs.runner) retired.push(old.runner.close());
  };
  let runnersClosed: Promise<unknown> | undefined;
  // Each runner waits for its async callint children, up to its grace; the pool then ends its workers.
  const closeRunners = () =>
    (runnersClosed ??= Promise.all([runs.runner.close(), ...retired, pythonPool?.close()]));
  const context: ServeContext = {
    boundHost: options.host ?? set.settings.host,
    current: () => ({ set, runs }),
    history,
    idempotency,
    limiter,
    authenticate: createAuthenticator(set.settings.auth),
    logError,
    events,
    keepRequest,
    sealer,
  };
  const handle = createHandler(context);
  const runScheduled = createScheduledRunner(context);
  // Schedules start once serve listens (startSchedules): a serve that cannot bind runs nothing.
  const noSchedules = { stop() {} };
  let schedules = noSchedules;
  let scheduling = false;
  const restartSchedules = () => {
    schedules.stop();
    schedules = scheduling ? startSchedules(set, runScheduled, logError) : noSchedules;
  };

  return {
    handle,
    history,
    idempotency,
    limiter,
    current: () => set,
    secrets: () => servedSecrets,
    endStreams: () => events.close(),
    startSchedules() {
      scheduling = true;
      restartSchedules();
    },
    reload() {
      // One reload at a time: two that overlap would both close the same old systems.
      const outcome = reloads.then(swapIn);
      reloads = outcome;
      return outcome;
    },
    async close(graceMs = 0) {
      schedules.stop();
      events.close();
      await reloads;
      try {
        await limiter.idle(graceMs);
        // Runs still going after the grace end with their workers, and their records are flushed too.
        await closeRunners();
        await Promise.all([history.flush(), idempotency.flush()]);
      } finally {
        await closeRunners();
        await systems.adapters.close();
      }
    },
  };

  /** Loads the project again and swaps the set in, starting its systems anew when they changed. */
  async function swapIn(): Promise<ReloadOutcome> {
    let next: Awaited<ReturnType<typeof loadServedSet>>;
    try {
      next = await loadServedSet(options);
    } catch (error) {
      // Some problems (a request_schema ajv cannot compile) are thrown, not found: they must not stop serve.
      return { ok: false, why: `  ${(error as Error).message}` };
    }
    if (!next.ok) return { ok: false, why: formatIssueList(next.issues) };
    // A definition that served until this edit broke it keeps the last good set serving, as the
    // project file does; one that was broken already is left out, and the others reload.
    const served = new Set(
      set.project.definitions.map((loaded) => loaded.file).filter((file) => !set.broken.includes(file)),
    );
    const newlyBroken = next.set.broken.filter((file) => served.has(file));
    if (newlyBroken.length > 0)
      return { ok: false, why: formatIssueList(issuesOf(next.set.brokenIssues, newlyBroken)) };
    for (const secret of next.set.project.secrets) servedSecrets.add(secret);
    vaults = projectVaults(next.set.project, options.env);
    if (sameSystems(set, next.set)) {
      set = next.set;
      restartSchedules();
      await swapRuns();
      return { ok: true, set };
    }
    try {
      const old = systems;
      await limiter.idle();
      systems = await startSystemsOf(next.set, options);
      set = next.set;
      restartSchedules();
      await swapRuns();
      await old.adapters.close();
      return { ok: true, set };
    } catch (error) {
      return { ok: false, why: `  ${(error as Error).message}` };
    }
  }
}

interface StartedSystems {
  adapters: ProjectAdapters;
  resolve: AdapterResolver;
}

/** The set's systems, started now: serve answers its first request without waiting for them. */
async function startSystemsOf(set: ServedSet, options: ServeAppOptions): Promise<StartedSystems> {
  const adapters = createProjectAdapters(set.project, { lasting: true });
  const fixed = options.adapters;
  return { adapters, resolve: fixed ?? (await adapters.resolverFor({ kind: "live" })) };
}

function sameSystems(a: ServedSet, b: ServedSet): boolean {
  const systemsOf = (set: ServedSet) =>
    JSON.stringify([set.project.config.systems, set.project.config.mockcore]);
  return systemsOf(a) === systemsOf(b);
}

/**
 * How serve's workers call back to serve's thread. An async callint child answers nothing, so its parent's
 * answer does not wait for it: its records come on a channel that costs every request some CPU, which
 * only a project that calls another integration opens. Python cells' calladapter and callint are made
 * here, where the systems' event loop runs.
 */
function callsFromWorkers(
  project: Project,
  history: HistoryStore,
  writeLaterChild: (child: ChildRecord) => void,
  current: RemoteHandlerOptions["current"],
): Pick<RunPoolOptions, "onLaterChild" | "remote"> {
  return {
    onLaterChild: callsIntegrations(project) ? writeLaterChild : undefined,
    // Always there: a reload under --watch may bring Python definitions; a task without calls opens no port.
    remote: createRemoteHandler({ current, keep: (record) => history.write(record) }),
  };
}

/** Whether a cell of the project may call another integration: its definitions' text names callint. */
function callsIntegrations(project: Project): boolean {
  return project.definitions.some((definition) => definition.value && mayCall(definition.value, "callint"));
}
