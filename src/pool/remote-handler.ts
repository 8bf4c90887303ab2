import type { CallintAnswer } from "../engine/callint.js";
import { executeForRemoteRun } from "../engine/service-requests.js";
import type { VaultStore } from "../engine/vault.js";
import { recordLine, resolveHistoryOptions, runFilesOf } from "../history/store.js";
import type { AdapterChoice, ProjectAdapters } from "../project/adapters.js";
import { createCallintRunner } from "../project/callint.js";
import type { Project } from "../project/project.js";
import type { ChildRecord, RemoteAnswer, RemoteCall } from "./task.js";

/** The thread that started the workers, answering Python runs' remote calls with its own systems. */
export interface RemoteHandler {
  answer(call: RemoteCall, choice: AdapterChoice | undefined): Promise<RemoteAnswer>;
}

export interface RemoteHandlerOptions {
  /** The project as loaded now (serve --watch reloads it), its systems and its vaults. */
  current(): { project: Project; adapters: ProjectAdapters; vaults?: VaultStore | undefined };
  /** Where records of callint children that end after their answer go; without it, the answer waits for them. */
  onLaterChild?: ((child: ChildRecord) => void) | undefined;
}

/**
 * calladapter is the call, made here; callint runs the child here, where the embedded mock core and the
 * systems have an event loop that runs, and its records go back with the answer to the parent's worker.
 */
export function createRemoteHandler(options: RemoteHandlerOptions): RemoteHandler {
  return {
    async answer(call, choice) {
      const { project, adapters, vaults } = options.current();
      const resolve = await adapters.resolverFor(choice ?? { kind: "live" });
      if (call.kind === "calladapter")
        return { value: await executeForRemoteRun(resolve, call.target, call.request, call.remainingMs) };
      const history = resolveHistoryOptions(project.dir, project.config.history);
      const childRecords: ChildRecord[] = [];
      let answered = false;
      const children = createCallintRunner(project, {
        adapters: resolve,
        keep: (record) => {
          const child = { runId: record.id, line: recordLine(record, history.storePayloads) };
          if (answered && options.onLaterChild) options.onLaterChild(child);
          else childRecords.push(child);
        },
        vaults,
        files: runFilesOf(history),
      });
      const { parent } = call.request;
      const value: CallintAnswer = await children.run({
        ...call.request,
        parent: { ...parent, namespace: () => parent.namespace },
      });
      if (!options.onLaterChild) await children.settled();
      answered = true;
      return { value, childRecords };
    },
  };
}
