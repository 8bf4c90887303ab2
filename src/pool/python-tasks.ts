import { mayCall } from "../definition/cells.js";
import type { Definition } from "../definition/types.js";
import { type CallintAnswer, startedAnswer } from "../engine/callint.js";
import type { OutputData, RunRecord } from "../engine/types.js";
import { createRunningSet, type KeepRecord } from "../project/callint.js";
import type { Project } from "../project/project.js";
import type { RemoteCallintRequest, RunStarted, RunTask, RunTaskResult } from "../runner/messages.js";
import type { PythonTask } from "../runner/runner.js";
import type { RunPool } from "./run-pool.js";

export type { PythonTask } from "../runner/runner.js";

/**
 * A task's Python needs: an integration with Python cells, or one whose callint children may have them
 * (they run in its worker). The port remote calls need costs a task more than its run: only a task whose
 * cells may call has one.
 */
export function pythonTask(definition: Definition, project: Project): PythonTask | undefined {
  if (definition.language === "python") {
    const callsIntegrations = mayCall(definition, "callint");
    return { remoteCalls: callsIntegrations || mayCall(definition, "calladapter"), callsIntegrations };
  }
  const python = pythonOf(project);
  return python.any && mayCall(definition, "callint")
    ? { remoteCalls: true, callsIntegrations: python.calling }
    : undefined;
}

/** Whether the project has Python definitions. */
export function hasPython(project: Project): boolean {
  return pythonOf(project).any;
}

const projectsPython = new WeakMap<Project, { any: boolean; calling: boolean }>();

/** Whether a project has Python definitions, and whether one of them may call integrations. */
function pythonOf(project: Project): { any: boolean; calling: boolean } {
  let known = projectsPython.get(project);
  if (!known) {
    const python = project.definitions.flatMap((loaded) =>
      loaded.value?.language === "python" ? [loaded.value] : [],
    );
    known = { any: python.length > 0, calling: python.some((definition) => mayCall(definition, "callint")) };
    projectsPython.set(project, known);
  }
  return known;
}

/** Where a Python run's task ran, which its children run as: the project's load and the run's systems. */
export type TaskPlace = Pick<RunTask, "version" | "mockcoreUrl" | "choice">;

/**
 * Python integrations that Python cells call with callint. The caller's worker waits blocked for the
 * answer, so a child cannot run there; nor on the thread that answers, whose event loop its own calls
 * would need while it waited blocked. It runs as a task of the pool one callint level down, made on first
 * use: a level waits only on the levels below it, so none waits on itself.
 */
export interface PythonChildren {
  /**
   * A sync child's answer once it ends; an async one's 202 once it starts. Its records go to `keep`;
   * `project` is the one loaded now, which has its definition.
   */
  run(
    request: RemoteCallintRequest,
    child: { definition: Definition; project: Project },
    keep: KeepRecord,
  ): Promise<CallintAnswer>;
  /** Resolves once every async child has ended. */
  settled(): Promise<void>;
}

export function createPythonChildren(below: () => RunPool, place: TaskPlace): PythonChildren {
  const running = createRunningSet();
  return {
    async run(request, { definition, project }, keep) {
      const { integration, input, runAsync, parent } = request;
      const async = runAsync ?? definition.run_async === true;
      const task = {
        ...place,
        integration,
        input,
        trigger: "callint" as const,
        returnRecord: true,
        callint: { runAsync, parent },
      };
      // An async child's start comes on its port, which may be after its end: a record that ended stays.
      let over = false;
      let onStart: ((run: RunStarted) => void) | undefined;
      const started = new Promise<RunStarted>((resolve) => {
        onStart = (run) => {
          if (!over) keep(JSON.parse(run.startedLine) as RunRecord);
          resolve(run);
        };
      });
      const ended = below()
        .run(task, async ? onStart : undefined, pythonTask(definition, project))
        .then((result) => {
          over = true;
          for (const child of result.childRecords ?? []) keep(JSON.parse(child.line) as RunRecord);
          keep(result.record ?? (JSON.parse(result.recordLine) as RunRecord));
          return result;
        });
      running.add(ended);
      if (async) {
        const start = await Promise.race([started, ended]);
        // A task that could not run the child has no 202: its failure is the answer.
        if (start.accepted) return startedAnswer(start.runId, integration, start.accepted);
      }
      const result = await ended;
      return {
        runId: result.runId,
        integration,
        status: result.status,
        durationMs: result.record?.duration_ms ?? 0,
        output: outputOf(result),
        masked: result.maskedValues ?? [],
      };
    },
    settled: running.settled,
  };
}

/** A task's output whole: its JSON payload comes back as text. */
function outputOf(result: RunTaskResult): OutputData {
  const { output, outputJson } = result;
  return outputJson === undefined ? output : { ...output, payload: JSON.parse(outputJson) };
}
