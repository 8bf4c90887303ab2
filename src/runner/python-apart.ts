import type { Runner } from "./runner.js";

/**
 * A runner that runs tasks that may have Python cells on `python()` (a pool, made on first use) and the
 * others on `here`: serve with `serve.workers: 0` keeps its JavaScript runs on its own thread, while Python
 * cells, whose calls need that thread free and whose worker can be ended when stuck or replaced when it
 * grew, run in a worker as under `bass run`. Closing it closes `here` only: the pool outlives a reload.
 */
export function withPythonApart(here: Runner, python: () => Runner): Runner {
  return {
    run: (task, onStarted, pythonTask) => (pythonTask ? python() : here).run(task, onStarted, pythonTask),
    failed: (task, error, startedId) => here.failed(task, error, startedId),
    close: () => here.close(),
  };
}
