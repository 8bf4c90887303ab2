import type { CompiledCell } from "./cell.js";
import type { CompiledRule } from "./compile.js";
import {
  addItem,
  callCell,
  callOptional,
  type RunState,
  reached,
  readCellValues,
  took,
  withBindings,
} from "./run-state.js";

export interface RulesOutcome {
  /** A rule with `abort_on_failure` failed: the caller's step fails. */
  aborted: boolean;
  /** The message of every failure, for the default failure output's details. */
  messages: string[];
}

/**
 * Runs validation rules in order (docs/reference.md#how-a-run-uses-these-keys step 4, docs/reference.md#service_requests): all of them run, each failure adds a
 * VALIDATION_FAILURE item. `bindings` are the loop variables of the service call they belong to.
 */
export async function runValidationRules(
  state: RunState,
  rules: readonly CompiledRule[],
  bindings: Record<string, unknown> = {},
): Promise<RulesOutcome> {
  const outcome: RulesOutcome = { aborted: false, messages: [] };
  await withBindings(state, bindings, async () => {
    for (const rule of rules) {
      const items = rule.applyToEach ? await itemsOf(state, rule.applyToEach, rule.label) : [undefined];
      for (const [index, item] of items.entries()) {
        const vridx = rule.applyToEach ? index : null;
        await withBindings(state, { vritem: item, vridx, _: undefined, vrmsg: undefined }, () =>
          runRule(state, rule, vridx, outcome),
        );
      }
    }
  });
  return outcome;
}

/** One rule for one item: `apply_if`, the field, the rule, then its pass or fail hook. */
async function runRule(state: RunState, rule: CompiledRule, vridx: number | null, outcome: RulesOutcome) {
  if (rule.applyIf && !took(state, rule.applyIf, await callCell(state, rule.applyIf))) return;
  reached(state, rule.site);
  state.namespace._ = await callCell(state, rule.field);
  if (took(state, rule.rule, await callCell(state, rule.rule))) {
    await callOptional(state, rule.passHook);
    return;
  }
  addItem(state, { kind: "VALIDATION_FAILURE", label: rule.label, message: rule.message, vridx });
  outcome.messages.push(rule.message);
  if (rule.abortOnFailure) outcome.aborted = true;
  state.namespace.vrmsg = rule.message;
  await callOptional(state, rule.failHook);
}

/** Loops of one cell's making stop here: a generator that never ends must not take the process's memory. */
const maxItems = 100_000;

/** The items of a loop cell's value, iterated within a cell's time limit (its iterator is the cell's code). */
export async function itemsOf(state: RunState, cell: CompiledCell, what: string): Promise<unknown[]> {
  const value = await callCell(state, cell);
  return readCellValues(state, what, () => toItems(value, what));
}

/** The items of an `apply_to_each` / `call_for_each` / `include_for_each` cell's value, which must be iterable. */
export function toItems(value: unknown, what: string): unknown[] {
  if (value === null || value === undefined) return [];
  if (typeof value !== "string" && !(typeof value === "object" && Symbol.iterator in value)) {
    throw new TypeError(`${what}: expected a list to iterate, got ${typeof value}`);
  }
  const items: unknown[] = [];
  for (const item of value as Iterable<unknown>) {
    if (items.push(item) > maxItems) throw new RangeError(`${what}: more than ${maxItems} items to iterate`);
  }
  return items;
}
