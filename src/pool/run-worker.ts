// A worker thread that runs integrations (SPEC §13.1): it opens the project itself, from .bass/cache, and
// answers one task per run; records go back to the thread that keeps the history.
import { BroadcastChannel, workerData } from "node:worker_threads";
import { noteCellRejection } from "../engine/cell.js";
import { startIntegration } from "../engine/run.js";
import type { VaultStore } from "../engine/vault.js";
import { BassError, errorMessage, isBassError } from "../errors.js";
import { sealRequest } from "../history/kept-request.js";
import { recordLine, resolveHistoryOptions, runFilesOf } from "../history/store.js";
import { createProjectAdapters, type ProjectAdapters } from "../project/adapters.js";
import { createCallintRunner } from "../project/callint.js";
import { openProject, type Project } from "../project/open.js";
import { projectVaults } from "../project/vaults.js";
import { reportCellsTo } from "../python/watchdog.js";
import { createSealer } from "../state/seal.js";
import { remoteCallsOver } from "./remote-calls.js";
import { reportCellsOn } from "./stuck-cells.js";
import type { ChildRecord, RunTask, RunTaskError, RunTaskResult, RunWorkerData } from "./task.js";

const data = workerData as RunWorkerData;
const laterChildren = data.laterChildren === undefined ? undefined : new BroadcastChannel(data.laterChildren);
laterChildren?.unref();
if (data.stuckCells) reportCellsTo(reportCellsOn(data.stuckCells));
// Opening the project awaits the same load; a worker of a project without Python never loads Pyodide.
if (data.python)
  import("../python/runtime.js")
    .then(({ loadPython }) => loadPython())
    // The open that awaits the load says why it failed.
    .catch(() => {});
// A request is sealed where it runs, off serve's HTTP thread (which sets serve's pace): that thread only
// adds the sealed text to the record's line.
const sealer = data.stateKey ? createSealer(data.stateKey) : undefined;
const sealed = (runId: string, task: RunTask) =>
  sealer && sealRequest(sealer, runId, task.input, data.unkeptHeaders);

// A rejection a cell left fails that cell, never the worker (as bin/bass.js does for the main thread).
process.on("unhandledRejection", (reason, promise) => {
  if (!noteCellRejection(reason, promise)) throw reason;
});

interface Opened {
  version: number;
  mockcoreUrl: string | undefined;
  project: Project;
  adapters: ProjectAdapters;
  vaults: VaultStore;
  /** Runs using it now: a newer version replaces it, and its systems close once they end. */
  running: number;
  replaced: boolean;
}

let current: Opened | undefined;
// One open at a time: tasks of a new version that come together open it once.
let opening: Promise<Opened | undefined> = Promise.resolve(undefined);

/**
 * The project at the task's version, opened once per version and kept for the runs after; its systems
 * anew when the mock core they must use changed (a live run after mocked ones, a reload). The systems it
 * replaces close once the runs still using them end.
 */
function open(task: RunTask): Promise<Opened | undefined> {
  opening = opening.then(async () => {
    if (current?.version === task.version && current.mockcoreUrl === task.mockcoreUrl) return current;
    const previous = current;
    const project =
      previous?.version === task.version
        ? previous.project
        : await openProject({
            cwd: data.cwd,
            env: data.env,
            projectDir: data.projectDir,
            requestSchemas: data.requestSchemas,
            cache: true,
          });
    const adapters = createProjectAdapters(project, { mockcoreUrl: task.mockcoreUrl });
    current = {
      version: task.version,
      mockcoreUrl: task.mockcoreUrl,
      project,
      adapters,
      vaults:
        previous?.project === project
          ? previous.vaults
          : projectVaults(
              { dir: data.vaultDir ?? project.dir, config: project.config },
              data.env,
              project.dir,
            ),
      running: 0,
      replaced: false,
    };
    if (previous) {
      previous.replaced = true;
      if (previous.running === 0) await previous.adapters.close();
    }
    return current;
  });
  // A failed open fails its task; the next task tries again.
  const opened = opening;
  opening = opening.catch(() => undefined);
  return opened;
}

/**
 * Runs one integration to its end; an async one says on the task's port when it started. What stops it
 * comes back as data, so that a rejected task always means the worker ended.
 */
export default async function runTask(task: RunTask): Promise<RunTaskResult | RunTaskError> {
  try {
    return await runOne(task);
  } catch (error) {
    task.port?.close();
    return { error: { code: isBassError(error) ? error.code : undefined, message: errorMessage(error) } };
  }
}

async function runOne(task: RunTask): Promise<RunTaskResult> {
  const opened = await open(task);
  if (!opened) throw new BassError("PROJECT_INVALID", "the project could not be opened");
  opened.running++;
  const letGo = async () => {
    opened.running--;
    if (opened.replaced && opened.running === 0) await opened.adapters.close();
  };
  let children: Promise<void> | undefined;
  try {
    const ran = await runIn(opened, task);
    children = ran.children;
    return ran.result;
  } finally {
    // Children that go on after their parent's answer use its systems until they end.
    if (children) void children.finally(letGo);
    else await letGo();
  }
}

/** The run's result, and, where children may end after it (laterChildren), when they have. */
async function runIn(
  { project, adapters, vaults }: Opened,
  task: RunTask,
): Promise<{ result: RunTaskResult; children?: Promise<void> }> {
  const definition = project.definitions.find((loaded) => loaded.value.name === task.integration);
  if (!definition) throw new BassError("INTEGRATION_NOT_FOUND", `no integration named ${task.integration}`);
  const history = resolveHistoryOptions(project.dir, project.config.history);
  const { storePayloads } = history;
  const files = runFilesOf(history);
  const resolve = await adapters.resolverFor(task.choice ?? { kind: "live" });
  // Children run here, in this worker, with its systems: no task waits on another of the pool.
  const childRecords: ChildRecord[] = [];
  let answered = false;
  const keepChild = (child: ChildRecord) => {
    if (answered) laterChildren?.postMessage(child);
    else childRecords.push(child);
  };
  const remote = task.calls && task.port && remoteCallsOver(task.port, task.calls);
  const children = createCallintRunner(project, {
    adapters: resolve,
    keep: (record) => keepChild({ runId: record.id, line: recordLine(record, storePayloads) }),
    vaults,
    files,
    remote,
  });
  const caller = task.callint;
  const run = startIntegration(project.compile(definition), task.input, {
    adapters: resolve,
    trigger: task.trigger,
    rerunOf: task.rerunOf,
    ...project.limits,
    // A callint child masks what its parent masks, within what is left of its parent's time.
    secrets: caller ? caller.parent.masked : project.secrets,
    ...(caller && {
      runAsync: caller.runAsync,
      timeLeftMs: Math.max(0, caller.parent.remainingMs),
      parent: { runId: caller.parent.runId, depth: caller.parent.depth, namespace: caller.parent.namespace },
    }),
    callint: children.run,
    vaults,
    files,
    remote,
    poolTask: task.poolTask,
  });
  const path = task.input.fullpath ?? "";
  // Sealed once: an async run's start and end lines both keep it.
  const sealedRequest = sealed(run.runId, task);
  if (run.started && run.accepted) {
    const startedLine = recordLine(run.started, storePayloads);
    task.port?.postMessage({
      runId: run.runId,
      startedLine,
      accepted: run.accepted,
      maskedPath: run.mask(path),
      sealedRequest,
    });
  }
  const result = await run.completion;
  // Without a channel for later records, async children are waited for: theirs go back with their parent's.
  if (!laterChildren) await children.settled();
  answered = true;
  // Async children that outlive the run make their calls on its port: it closes once they have ended.
  if (laterChildren) void children.settled().finally(() => task.port?.close());
  else task.port?.close();
  const { output, outputJson } = result;
  const answer: RunTaskResult = {
    runId: result.runId,
    status: result.status,
    // What goes back is cloned: a JSON payload goes as its text only.
    output:
      outputJson === undefined ? output : { status: output.status, headers: output.headers, payload: null },
    outputJson,
    recordLine: recordLine(result.record, storePayloads),
    sealedRequest,
    childRecords,
    record: task.returnRecord ? result.record : undefined,
    maskedPath: result.mask(path),
    maskedTexts: task.maskTexts && result.mask(task.maskTexts),
    accepted: run.accepted,
    maskedValues: caller ? result.maskedValues : undefined,
  };
  return laterChildren ? { result: answer, children: children.settled() } : { result: answer };
}
