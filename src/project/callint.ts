import type { AdapterResolver } from "../adapters/adapter.js";
import type { LoadedDefinition } from "../definition/load.js";
import type { Definition } from "../definition/types.js";
import {
  type CallintAnswer,
  type CallintRequest,
  type CallintRunner,
  startedAnswer,
} from "../engine/callint.js";
import type { CoverageRecorder } from "../engine/coverage.js";
import type { RemoteCalls } from "../engine/remote.js";
import { startIntegration } from "../engine/run.js";
import type { RunFileKeeper } from "../engine/run-files.js";
import type { RunRecord } from "../engine/types.js";
import type { VaultStore } from "../engine/vault.js";
import { BassError } from "../errors.js";
import { suggestion } from "../suggest.js";
import type { Project } from "./project.js";
import { formatIssueList, isBlocking, issuesOf } from "./usable.js";

/** Children that run on: `settled` resolves once every one has ended, those added meanwhile too. */
export function createRunningSet(): { add(ended: Promise<unknown>): void; settled(): Promise<void> } {
  const running = new Set<Promise<unknown>>();
  return {
    add(ended) {
      running.add(ended);
      void ended.finally(() => running.delete(ended)).catch(() => {});
    },
    async settled() {
      while (running.size) await Promise.allSettled([...running]);
    },
  };
}

/** Where a callint child's records go: the parent's history, as each is made (a running one, then its end). */
export type KeepRecord = (record: RunRecord) => void;

/**
 * Runs the project's integrations for callint where the parent runs: the child is compiled from the
 * project, calls the same systems, gets what is left of the parent's time, masks what the parent masks,
 * and its records go where the parent's go. `settled` resolves once every child has ended, async ones too.
 */
export function createCallintRunner(
  project: Project,
  {
    adapters,
    keep,
    vaults,
    files,
    remote,
    python,
    coverage,
  }: {
    adapters: AdapterResolver;
    /** Where children count what of their definitions they reach, as their parent does. */
    coverage?: CoverageRecorder | undefined;
    keep: KeepRecord;
    vaults?: VaultStore | undefined;
    files?: RunFileKeeper | undefined;
    /** How a Python child's cells make their calls, in a worker thread whose task has them. */
    remote?: RemoteCalls | undefined;
    /** Runs a Python child elsewhere: on this thread its cells could make no calls (see PythonChildren). */
    python?: ((request: CallintRequest, definition: Definition) => Promise<CallintAnswer>) | undefined;
  },
): { run: CallintRunner; settled(): Promise<void> } {
  const running = createRunningSet();
  const run: CallintRunner = async (request) => {
    const { integration: name, input, runAsync, parent } = request;
    const loaded = usableChild(project, name);
    if (python && loaded.value.language === "python") return python(request, loaded.value);
    const integration = project.compile(loaded);
    const async = runAsync ?? integration.definition.run_async === true;
    const child = startIntegration(integration, input, {
      ...project.limits,
      adapters,
      coverage,
      vaults,
      files,
      trigger: "callint",
      // The parent's secrets and masked values: the project's secrets are among them.
      secrets: parent.masked,
      callint: run,
      runAsync,
      timeLeftMs: Math.max(0, parent.remainingMs),
      poolTask: parent.poolTask,
      remote,
      parent: {
        runId: parent.runId,
        depth: parent.depth,
        // Only a sync child sees its parent's namespace: an async one outlives the call.
        namespace: async ? null : parent.namespace(),
      },
    });
    if (child.started) keep(child.started);
    const ended = child.completion.then((result) => {
      keep(result.record);
      return result;
    });
    running.add(ended);
    if (child.accepted) return startedAnswer(child.runId, name, child.accepted);
    const result = await ended;
    return {
      runId: result.runId,
      integration: name,
      status: result.status,
      durationMs: result.record.duration_ms ?? 0,
      output: result.output,
      masked: result.maskedValues,
    } satisfies CallintAnswer;
  };
  return {
    run,
    settled: running.settled,
  };
}

/** The project's integration of that name: one it lacks, or one with findings, cannot run. */
function usableChild(project: Project, name: string): LoadedDefinition {
  const loaded = project.definitions.find((candidate) => candidate.value.name === name);
  if (!loaded) {
    const known = project.definitions.map((candidate) => candidate.value.name);
    throw new BassError(
      "INTEGRATION_NOT_FOUND",
      `callint: no integration named ${name} in the project${suggestion(name, known)}`,
    );
  }
  const findings = issuesOf(project.issues, [loaded.file]).filter(isBlocking);
  if (findings.length)
    throw new BassError(
      "DEFINITION_INVALID",
      `callint: integration ${name} cannot run until these are fixed:\n${formatIssueList(findings)}`,
    );
  return loaded;
}
