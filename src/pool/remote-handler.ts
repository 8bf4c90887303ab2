import { createDeadlines } from "../engine/deadlines.js";
import { executeForRemoteRun } from "../engine/service-requests.js";
import type { VaultStore } from "../engine/vault.js";
import { resolveHistoryOptions, runFilesOf } from "../history/store.js";
import type { AdapterChoice, ProjectAdapters } from "../project/adapters.js";
import { createCallintRunner, type KeepRecord } from "../project/callint.js";
import type { Project } from "../project/project.js";
import type { RemoteAnswer, RemoteCall } from "../runner/messages.js";
import type { PythonChildren } from "./python-tasks.js";
import { crossingRequest } from "./remote-calls.js";

/** The thread that started the workers, answering Python runs' remote calls with its own systems. */
export interface RemoteHandler {
  /** `python` runs a Python child, which cannot run here (see PythonChildren). */
  answer(call: RemoteCall, choice: AdapterChoice | undefined, python: PythonChildren): Promise<RemoteAnswer>;
}

export interface RemoteHandlerOptions {
  /** The project as loaded now (serve --watch reloads it), its systems and its vaults. */
  current(): { project: Project; adapters: ProjectAdapters; vaults?: VaultStore | undefined };
  /** Where callint children's records go, as each is made: this thread's history. */
  keep: KeepRecord;
  /** Answer a callint once its async children have ended too (bass run, bass test); serve answers at once. */
  waitForChildren?: boolean | undefined;
}

/**
 * calladapter is the call, made here; callint runs the child here, where the embedded mock core and the
 * systems have an event loop that runs, and a Python child in a worker of its own. The child's records
 * are written here as it makes them, so none is lost should the parent's worker have given up waiting or
 * ended.
 */
export function createRemoteHandler(options: RemoteHandlerOptions): RemoteHandler {
  // The waits of the calls made here for runs elsewhere.
  const deadlines = createDeadlines();
  return {
    async answer(call, choice, python) {
      const { project, adapters, vaults } = options.current();
      const resolve = await adapters.resolverFor(choice ?? { kind: "live" });
      if (call.kind === "calladapter")
        return {
          value: await executeForRemoteRun(resolve, deadlines, call.target, call.request, call.remainingMs),
        };
      const history = resolveHistoryOptions(project.dir, project.config.history);
      const children = createCallintRunner(project, {
        adapters: resolve,
        keep: options.keep,
        vaults,
        files: runFilesOf(history),
        python: (request, definition) =>
          python.run(crossingRequest(request), { definition, project }, options.keep),
      });
      const { parent } = call.request;
      const value = await children.run({
        ...call.request,
        parent: { ...parent, namespace: () => parent.namespace },
      });
      if (options.waitForChildren) {
        await children.settled();
        await python.settled();
      }
      return { value };
    },
  };
}
