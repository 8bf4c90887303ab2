import { Cron } from "croner";
import { everyMs, scheduleProblem } from "../definition/schedule.js";
import type { CompiledIntegration } from "../engine/compile.js";
import type { RunInput } from "../engine/types.js";
import type { ServedSet } from "./served-set.js";

/** Runs an integration as serve runs a request's, in one of its slots; resolves when the run has ended. */
export type RunScheduled = (integration: CompiledIntegration, input: RunInput) => Promise<unknown>;

/**
 * The set's scheduled integrations (`schedule: { every | cron, tz, payload }`), each run on its times
 * while serve serves the set, with trigger `schedule` and its payload as the request body. A run still
 * going at its next time is not doubled. Broken and inactive integrations have no schedule.
 */
export function startSchedules(
  set: ServedSet,
  run: RunScheduled,
  logError: (error: unknown) => void,
): { stop(): void } {
  const stops: (() => void)[] = [];
  for (const loaded of set.project.definitions) {
    const schedule = loaded.value.schedule;
    if (!schedule || scheduleProblem(schedule)) continue;
    if (set.broken.includes(loaded.file) || loaded.value.active === false) continue;
    const integration = set.project.compile(loaded);
    const payload = JSON.stringify(schedule.payload ?? {});
    let running = false;
    const tick = () => {
      if (running) return;
      running = true;
      // What goes wrong outside the run (a history that cannot be written) is logged, never thrown.
      run(integration, { payload: JSON.parse(payload), method: "POST" })
        .catch(logError)
        .finally(() => {
          running = false;
        });
    };
    if (schedule.every !== undefined) {
      const timer = setInterval(tick, everyMs(schedule.every));
      timer.unref();
      stops.push(() => clearInterval(timer));
    } else {
      const job = new Cron(schedule.cron as string, { timezone: schedule.tz, unref: true }, tick);
      stops.push(() => job.stop());
    }
  }
  return {
    stop() {
      for (const stop of stops.splice(0)) stop();
    },
  };
}
