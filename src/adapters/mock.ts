import { closest, knownNames } from "../suggest.js";
import type { Adapter, AdapterResponse } from "./adapter.js";

/** One answer of a `--mock` file: what the adapter would have said. */
export interface MockAnswer {
  success: boolean;
  status?: number;
  payload?: unknown;
  messages?: string[];
}

/** Answers by formula variable; a list answers a `call_for_each` service request by `sridx` (docs/behaviour.md#bass-run). */
export type MockAnswers = Readonly<Record<string, MockAnswer | readonly (MockAnswer | null)[]>>;

/** An adapter that answers from `--mock` answers instead of calling systems. */
export function createMockAdapter(answers: MockAnswers, source: string): Adapter {
  return {
    async execute(_request, { formulaVariable, sridx }): Promise<AdapterResponse> {
      const { answer, which } = answerOf(answers, formulaVariable, sridx, source);
      // A list's entries are checked when they are used: those at skipped indexes are ignored (docs/behaviour.md#bass-run).
      const problem = answerProblem(answer, which);
      if (problem) throw new Error(`${source}: ${problem}`);
      return {
        success: answer.success,
        status: answer.status,
        payload: structuredClone(answer.payload ?? null),
        messages: [...(answer.messages ?? [])],
      };
    },
  };
}

/** The answer to one call, and how a message names it (`core`, `lookup[2]`); throws when there is none. */
function answerOf(
  answers: MockAnswers,
  formulaVariable: string,
  sridx: number | null | undefined,
  source: string,
): { answer: MockAnswer; which: string } {
  const entry = Object.hasOwn(answers, formulaVariable) ? answers[formulaVariable] : undefined;
  const answer = Array.isArray(entry) ? entry[sridx ?? 0] : (entry as MockAnswer | undefined);
  const which = Array.isArray(entry) ? `${formulaVariable}[${sridx ?? 0}]` : formulaVariable;
  if (answer) return { answer, which };
  // A key of the file that is near the formula variable is most likely a typo in the file, not in the
  // definition: the key is what to fix.
  const keys = Object.keys(answers);
  const typo = entry === undefined ? closest(formulaVariable, keys) : undefined;
  const hint = typo
    ? `; is its key ${JSON.stringify(typo)} meant to be ${JSON.stringify(formulaVariable)}?`
    : "";
  const known = entry === undefined ? knownNames(keys, "it answers") : "";
  throw new Error(`${source} has no answer for service request "${which}"${hint}${known}`);
}

/** Checks the shape of a parsed mock file; says what is wrong, or undefined when it is usable. */
export function checkMockAnswers(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return "a mock file is a map from formula variable to { success, status?, payload, messages? }";
  }
  for (const [name, entry] of Object.entries(value)) {
    if (Array.isArray(entry)) continue;
    const problem = answerProblem(entry, name);
    if (problem) return problem;
  }
  return undefined;
}

function answerProblem(answer: unknown, where: string): string | undefined {
  if (answer === null || typeof answer !== "object" || typeof (answer as MockAnswer).success !== "boolean") {
    return `${where} needs success: true or false`;
  }
  const { status, messages } = answer as MockAnswer;
  if (status !== undefined && !Number.isInteger(status)) return `${where}.status must be a whole number`;
  if (messages !== undefined && !(Array.isArray(messages) && messages.every((m) => typeof m === "string"))) {
    return `${where}.messages must be a list of strings`;
  }
  return undefined;
}
