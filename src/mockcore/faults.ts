import { BassError } from "../errors.js";
import { coreError } from "./core-error.js";
import type { MockcoreAnswer } from "./handler.js";

/** Faults the core injects for tests of callers (docs/mockcore.md#state-and-faults). A rate is a share of requests, 0 to 1. */
export interface MockcoreFaults {
  /** Every request waits this long before the core looks at it. */
  latencyMs?: number;
  /** Answer 500 `{ errorCode: "INTERNAL" }` without touching the ledger. */
  errorRate?: number;
  /** Destroy the connection without an answer, after the ledger did its work: the change stands, the answer is lost. */
  resetRate?: number;
  /** Answer 200 with a body that is not JSON, also after the ledger did its work. */
  malformedRate?: number;
  /** Draws in [0, 1) for the rates, in the order error, reset, malformed (default `Math.random`). */
  random?: () => number;
}

/** What becomes of one answer: it is sent (as `text` instead of its JSON when given), or the connection is reset. */
export type Delivery = { answer: MockcoreAnswer; text?: string } | "reset";

/**
 * Wraps the answering of each request in the faults: the latency and the injected 500 come before
 * `respond` runs, the reset and the malformed body after it. Throws a USAGE BassError for a rate
 * outside 0 to 1 or a negative latency.
 */
export function createFaultInjector(
  faults: MockcoreFaults,
): (respond: () => Promise<MockcoreAnswer>) => Promise<Delivery> {
  checkFaults(faults);
  const random = faults.random ?? Math.random;
  const roll = (rate = 0) => rate > 0 && random() < rate;
  return async (respond) => {
    if (faults.latencyMs) await new Promise((resolve) => setTimeout(resolve, faults.latencyMs));
    if (roll(faults.errorRate))
      return { answer: coreError(500, "INTERNAL", "injected fault: internal error") };
    const answer = await respond();
    if (roll(faults.resetRate)) return "reset";
    if (roll(faults.malformedRate)) {
      const text = JSON.stringify(answer.body);
      return { answer: { status: 200, body: answer.body }, text: text.slice(0, Math.ceil(text.length / 2)) };
    }
    return { answer };
  };
}

function checkFaults(faults: MockcoreFaults): void {
  for (const name of ["errorRate", "resetRate", "malformedRate"] as const) {
    const rate = faults[name];
    if (rate !== undefined && !(rate >= 0 && rate <= 1))
      throw new BassError("USAGE", `the mock core's ${name} must be from 0 to 1`);
  }
  if (faults.latencyMs !== undefined && !(faults.latencyMs >= 0))
    throw new BassError("USAGE", "the mock core's latencyMs must be 0 or more");
}
