import type { AdapterResolver } from "../adapters/adapter.js";
import { createCoverageRecorder } from "../engine/coverage.js";
import type { RemoteCalls } from "../engine/remote.js";
import { startIntegration } from "../engine/run.js";
import type { RunFileKeeper } from "../engine/run-files.js";
import type { RunInput } from "../engine/types.js";
import type { VaultStore } from "../engine/vault.js";
import { BassError } from "../errors.js";
import { type LineOptions, recordLine, resolveHistoryOptions, runFilesOf } from "../history/store.js";
import type { AdapterChoice } from "../project/adapters.js";
import { createCallintRunner } from "../project/callint.js";
import type { Project } from "../project/project.js";
import type { ChildRecord, RunStarted, RunTask, RunTaskResult, StoppedRun } from "./messages.js";
import { tellingWhenActing, type WaysOut } from "./ways-out.js";

/** Where a task runs: a loaded project, its systems and its vaults, on this thread. */
export interface TaskPlace {
  project: Project;
  /** The adapters a run uses: the project's systems, or mocks or a cassette (`choice`). */
  resolverFor(choice: AdapterChoice): AdapterResolver | Promise<AdapterResolver>;
  vaults: VaultStore | undefined;
  /** Seals a run's request to keep with its record (serve), or gives nothing. */
  seal?: ((runId: string, input: RunInput) => string | undefined) | undefined;
  /** How records become history lines (payloads or not, how long), and where runs' files go. */
  lines: LineOptions;
  files: RunFileKeeper | undefined;
}

/** A task place for `project`, its history settings read once. */
export function createTaskPlace(
  project: Project,
  where: Pick<TaskPlace, "resolverFor" | "vaults" | "seal">,
): TaskPlace {
  const history = resolveHistoryOptions(project.dir, project.config.history);
  return { project, ...where, lines: history, files: runFilesOf(history) };
}

/** What a task says while it runs, besides its result: its start, and children that end after it. */
export interface TaskTalk {
  /**
   * An async run's start (its 202 and running record), before its end; the run's work waits for what it
   * returns (bass run writes the running record to disk first).
   */
  onStarted?: ((started: RunStarted) => unknown) | undefined;
  /**
   * Where the records of callint children that end after the run's answer go (serve): the task then
   * answers when its run ends. Without it, a task waits for its async children too, and theirs come
   * back with its own.
   */
  onLaterChild?: ((child: ChildRecord) => void) | undefined;
  /** How a Python run's cells make their calls from a worker thread (see RemoteCalls). */
  remote?: RemoteCalls | undefined;
  /**
   * Told once, before the run first acts outside its thread (calls a system, opens a vault, keeps files,
   * says its start): a run stopped before then may run again elsewhere.
   */
  onActing?: (() => void) | undefined;
}

/**
 * Runs one task to its end where it is called, as both runners do: the record is the engine's, made into
 * the history store's line and masked forms here, so that what a caller gets is the same plain data on
 * this thread as from a worker. `children` settles once callint children that outlive the run have ended.
 */
export async function runTask(
  place: TaskPlace,
  task: RunTask,
  talk: TaskTalk = {},
): Promise<{ result: RunTaskResult; children?: Promise<void> }> {
  const { project, lines } = place;
  const definition = project.definitions.find((loaded) => loaded.value.name === task.integration);
  if (!definition) throw new BassError("INTEGRATION_NOT_FOUND", `no integration named ${task.integration}`);
  const ways: WaysOut = {
    adapters: await place.resolverFor(task.choice ?? { kind: "live" }),
    vaults: place.vaults,
    files: place.files,
    remote: talk.remote,
  };
  const {
    adapters: resolve,
    vaults,
    files,
    remote,
  } = talk.onActing ? tellingWhenActing(ways, talk.onActing) : ways;
  // Children run here, with the run's systems: no task waits on another.
  const childRecords: ChildRecord[] = [];
  let answered = false;
  const later = talk.onLaterChild;
  const keepChild = (child: ChildRecord) => {
    if (answered && later) later(child);
    else childRecords.push(child);
  };
  const coverage = task.coverage ? createCoverageRecorder() : undefined;
  const children = createCallintRunner(project, {
    adapters: resolve,
    coverage,
    keep: (record) => keepChild({ runId: record.id, line: recordLine(record, lines) }),
    vaults,
    files,
    remote,
  });
  const caller = task.callint;
  // Only an async run says its start, and waits for what keeping it gives.
  let kept: (value?: unknown) => void = () => {};
  const startKept =
    (caller?.runAsync ?? definition.value.run_async) === true
      ? new Promise((resolve) => {
          kept = resolve;
        })
      : undefined;
  const run = startIntegration(project.compile(definition), task.input, {
    adapters: resolve,
    coverage,
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
    startKept,
    stopped: task.stopped && {
      error: stoppedError(task.stopped),
      runId: task.stopped.runId,
      startedAt: task.stopped.startedAt,
    },
  });
  const path = task.input.fullpath ?? "";
  // Sealed once: an async run's start and end lines both keep it.
  const sealedRequest = place.seal?.(run.runId, task.input);
  let told: unknown;
  try {
    told = tellStarted(run, talk, { lines, path, sealedRequest });
  } finally {
    // The run goes on whatever keeping its start met: that is the caller's to report (bass run's flush
    // fails again at its end).
    kept(Promise.resolve(told).catch(() => {}));
  }
  const result = await run.completion;
  // Without a place for later records, async children are waited for: theirs go back with their parent's.
  if (!later) await children.settled();
  answered = true;
  const answer = taskResult(result, task, {
    lines,
    path,
    sealedRequest,
    childRecords,
    accepted: run.accepted,
  });
  if (coverage) answer.coverage = coverage.hits;
  return later ? { result: answer, children: children.settled() } : { result: answer };
}

/** A finished run as its task's result: plain data that crosses a thread, masked for whoever shows it. */
function taskResult(
  result: Awaited<ReturnType<typeof startIntegration>["completion"]>,
  task: RunTask,
  facts: Pick<RunTaskResult, "sealedRequest" | "childRecords" | "accepted"> & {
    lines: TaskPlace["lines"];
    path: string;
  },
): RunTaskResult {
  const { output, outputJson } = result;
  return {
    runId: result.runId,
    status: result.status,
    // A JSON payload goes as its text only: what crosses a thread is cloned.
    output:
      outputJson === undefined ? output : { status: output.status, headers: output.headers, payload: null },
    outputJson,
    recordLine: recordLine(result.record, facts.lines),
    sealedRequest: facts.sealedRequest,
    childRecords: facts.childRecords,
    record: task.returnRecord ? result.record : undefined,
    maskedPath: result.mask(facts.path),
    maskedTexts: task.maskTexts && result.mask(task.maskTexts),
    accepted: facts.accepted,
    // A callint parent masks what its child masked; a caller that shows the run masks its own copies.
    maskedValues: task.callint || task.returnRecord ? result.maskedValues : undefined,
  };
}

/** Tells the caller an async run has started (its first record, its 202), and gives back what that gave. */
function tellStarted(
  run: ReturnType<typeof startIntegration>,
  talk: TaskTalk,
  {
    lines,
    path,
    sealedRequest,
  }: { lines: TaskPlace["lines"]; path: string; sealedRequest: string | undefined },
): unknown {
  if (!run.started || !run.accepted) return undefined;
  talk.onActing?.();
  return talk.onStarted?.({
    runId: run.runId,
    startedLine: recordLine(run.started, lines),
    accepted: run.accepted,
    maskedPath: run.mask(path),
    sealedRequest,
  });
}

/** The error a stopped run fails with, as a cell that timed out fails its run: at the cell, where known. */
function stoppedError({ message, cell }: StoppedRun): BassError {
  return new BassError("CELL_TIMEOUT", message, {
    cell: cell?.cell,
    position: cell && { file: cell.file, line: cell.line, column: 1 },
  });
}
