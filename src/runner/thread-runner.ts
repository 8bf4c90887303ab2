import { createScrubber } from "../engine/masks.js";
import { createRunningSet } from "../project/callint.js";
import type { ChildRecord } from "./messages.js";
import { runTask, type TaskPlace } from "./run-task.js";
import { closeGraceMs, type Runner, settledWithin } from "./runner.js";
import { stoppedRunResult } from "./stopped.js";

export interface ThreadRunnerOptions extends TaskPlace {
  /** Where records of callint children that end after their parent's answer go (see TaskTalk). */
  onLaterChild?: ((child: ChildRecord) => void) | undefined;
  /** What a failure's message is masked with (default: the project's secrets). */
  secrets?: () => Iterable<string>;
}

/**
 * The in-thread runner: runs on the thread that asks, in the project's realm, with the time limits and the
 * realm's rules but no heap limit of its own (`bass run`, `serve.workers: 0`). Its Python cells can make
 * no calls, since they would wait blocked on the thread that has to answer them.
 */
export function createThreadRunner(options: ThreadRunnerOptions): Runner {
  const { onLaterChild } = options;
  const children = createRunningSet();
  const secrets = options.secrets ?? (() => options.project.secrets);
  return {
    async run(task, onStarted) {
      const ran = await runTask(options, task, { onStarted, onLaterChild });
      if (ran.children) children.add(ran.children);
      return ran.result;
    },
    failed: (task, error, startedId) => stoppedRunResult(task, error, startedId, createScrubber(secrets())),
    close: () => settledWithin([children.settled()], closeGraceMs),
  };
}
