// A worker thread that runs integrations (docs/architecture.md#cells-that-cannot-hang-serve-leak-memory-or-reach-the-host): it opens the project itself, from .bass/cache, and
// answers one task per run; records go back to the thread that keeps the history.
import { BroadcastChannel, type MessagePort, parentPort, workerData } from "node:worker_threads";
import { createEngine } from "../engine/engine.js";
import type { VaultStore } from "../engine/vault.js";
import { BassError, errorMessage, isBassError } from "../errors.js";
import { collectGarbage, createHeapKeeper, heapBytes, heapGrowthToCollect } from "../heap.js";
import { sealRequest } from "../history/kept-request.js";
import { createProjectAdapters, type ProjectAdapters } from "../project/adapters.js";
import { openProject, type Project } from "../project/open.js";
import { projectVaults } from "../project/vaults.js";
import { freezeReachableBuiltins } from "../python/host-world.js";
import { pythonRuntime } from "../python/runtime.js";
import { reportCellsTo } from "../python/watchdog.js";
import type { RunTask, RunTaskError, RunTaskResult, RunWorkerData } from "../runner/messages.js";
import { createTaskPlace, runTask, type TaskPlace } from "../runner/run-task.js";
import { createSealer } from "../state/seal.js";
import { remoteCallsOver } from "./remote-calls.js";
import { reportCellsOn } from "./stuck-cells.js";
import { answerBatches } from "./threads.js";

const data = workerData as RunWorkerData;
const laterChildren = data.laterChildren === undefined ? undefined : new BroadcastChannel(data.laterChildren);
laterChildren?.unref();
// Where the pool reads which task's cell holds this thread until when, for Python and JavaScript cells.
const cellReporter = data.stuckCells && reportCellsOn(data.stuckCells);
reportCellsTo(cellReporter);
// Opening the project awaits the same load; a worker of a project without Python never loads Pyodide.
const pythonLoaded = data.python
  ? import("../python/runtime.js")
      .then(({ loadPython }) => loadPython())
      // Its cells then find the thread's built-ins frozen: none is checked after them.
      .then(() => freezeReachableBuiltins())
      // The open that awaits the load says why it failed.
      .then(
        () => {},
        () => {},
      )
  : undefined;
// A request is sealed where it runs, off serve's HTTP thread (which sets serve's pace): that thread only
// adds the sealed text to the record's line.
const sealer = data.stateKey ? createSealer(data.stateKey) : undefined;

// The thread's engine: a rejection a cell left fails that cell, never the worker (as src/cli/launch.ts
// does for the main thread).
const engine = createEngine();
engine.cellReporter = cellReporter;
process.on("unhandledRejection", (reason, promise) => {
  if (!engine.rejections.note(reason, promise)) throw reason;
});

interface Opened {
  version: number;
  mockcoreUrl: string | undefined;
  project: Project;
  adapters: ProjectAdapters;
  vaults: VaultStore;
  /** Where its tasks run: the project with these systems and vaults. */
  place: TaskPlace;
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
            engine,
          });
    const adapters = createProjectAdapters(project, { mockcoreUrl: task.mockcoreUrl });
    const vaults =
      previous?.project === project
        ? previous.vaults
        : projectVaults({ dir: data.vaultDir ?? project.dir, config: project.config }, data.env, project.dir);
    current = {
      version: task.version,
      mockcoreUrl: task.mockcoreUrl,
      project,
      adapters,
      vaults,
      place: createTaskPlace(project, {
        resolverFor: (choice) => adapters.resolverFor(choice),
        vaults,
        seal: sealer && ((runId, input) => sealRequest(sealer, runId, input, data.unkeptHeaders)),
      }),
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
async function runWorkerTask(task: RunTask): Promise<RunTaskResult | RunTaskError> {
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
  if (baseBytes === undefined) {
    await pythonLoaded;
    baseBytes ??= heapBytes();
  }
  opened.running++;
  const letGo = async () => {
    opened.running--;
    if (opened.replaced && opened.running === 0) await opened.adapters.close();
  };
  let children: Promise<void> | undefined;
  try {
    const { port, poolTask } = task;
    const ran = await runTask(opened.place, task, {
      onStarted: port && ((started) => port.postMessage(started)),
      onLaterChild: laterChildren && ((child) => laterChildren.postMessage(child)),
      remote: task.calls && port && remoteCallsOver(port, task.calls),
      // A task stopped before its run acted outside this thread can run again on another worker.
      onActing: poolTask === undefined ? undefined : () => cellReporter?.acting(poolTask),
    });
    children = ran.children;
    // Async children that outlive the run make their calls on its port: it closes once they have ended.
    if (children) void children.finally(() => port?.close());
    else port?.close();
    return ran.result;
  } finally {
    // Children that go on after their parent's answer use its systems until they end.
    if (children) void children.finally(letGo);
    else await letGo();
  }
}

// What the thread held once its project was open, before any run: a run may leave it `cellMemoryMb` above.
let baseBytes: number | undefined;

/** Why this thread must be replaced after a run, if it must: memory it kept, built-ins a cell changed. */
function spent(): string | undefined {
  if (pythonRuntime()?.checkBuiltins())
    return "a Python cell changed JavaScript built-ins in a way that could not be put back";
  const base = baseBytes;
  if (base === undefined || current === undefined) return undefined;
  const limitMb = current.project.limits.cellMemoryMb;
  const grownMb = () => Math.round((heapBytes() - base) / 2 ** 20);
  if (grownMb() <= limitMb) return undefined;
  // What a run left may be garbage V8 has not collected yet: only what the thread still holds counts.
  collectGarbage();
  const heldMb = grownMb();
  if (heldMb > limitMb)
    return `it held ${heldMb} MB more after a run than when it started, over limits.cell_memory_mb (${limitMb})`;
  return undefined;
}

// What a run left is given back once it is much, rather than held until the thread allocates again.
const keepHeap = createHeapKeeper(heapGrowthToCollect);

const answerer = answerBatches(parentPort as MessagePort, async (task) => {
  const answer = await runWorkerTask(task as RunTask);
  keepHeap();
  const reason = spent();
  if (reason) answerer.retire(reason);
  return answer;
});
