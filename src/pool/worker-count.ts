import { availableParallelism } from "node:os";
import type { ProjectConfig } from "../definition/types.js";

/**
 * How many worker threads run a project's integrations (bass serve, bass test): `serve.workers`, else one
 * per core, at most 4; 0 runs them on bass's own thread.
 */
export function workerCount(config: ProjectConfig): number {
  return config.serve?.workers ?? Math.min(availableParallelism(), 4);
}
