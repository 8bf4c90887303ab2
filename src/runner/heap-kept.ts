import type { Runner } from "./runner.js";

/** A runner whose every run ends with `keep` (createHeapKeeper): what a run allocated is given back. */
export function withHeapKept(runner: Runner, keep: () => void): Runner {
  return {
    ...runner,
    async run(task, onStarted, python) {
      try {
        return await runner.run(task, onStarted, python);
      } finally {
        keep();
      }
    },
  };
}
