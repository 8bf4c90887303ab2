import { BassError } from "../errors.js";
import { castValue } from "./cast.js";
import type { CompiledMapping, CompiledPath, CompiledServiceRequest } from "./compile.js";
import { type ResolvedSegment, writePath } from "./paths.js";
import { callCellNow, type RunState, withBindings } from "./run-state.js";
import { copyOf } from "./snapshot.js";
import { toItems } from "./validation.js";

/** Builds a service call's request payload from its field mappings, in order (SPEC §4.5). */
export function applyFieldMappings(
  state: RunState,
  request: CompiledServiceRequest,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const mapping of request.mappings) {
    if (!mapping.includeForEach) {
      applyMapping(state, mapping, payload);
      continue;
    }
    const items = toItems(callCellNow(state, mapping.includeForEach), mapping.label);
    for (const [fidx, fitem] of items.entries()) {
      withBindings(state, { fitem, fidx }, () => applyMapping(state, mapping, payload));
    }
  }
  return payload;
}

function applyMapping(state: RunState, mapping: CompiledMapping, payload: Record<string, unknown>): void {
  if (mapping.includeIf && !callCellNow(state, mapping.includeIf)) return;
  let value =
    "value" in mapping.source ? callCellNow(state, mapping.source.value) : copyOf(mapping.source.literal);
  if (mapping.mapValue) value = mapping.mapValue(value);
  if (mapping.valueType && value !== null && value !== undefined) {
    const cast = castValue(value, mapping.valueType);
    if (!cast.ok) fail(mapping, `cannot cast ${describe(value)} to ${mapping.valueType}`);
    value = cast.value;
  }
  if (value === null || value === undefined) {
    if (!mapping.nullable) fail(mapping, "the value is null and the mapping is not nullable");
    value = null;
  }
  writePath(payload, resolvePath(state, mapping.field), value);
}

const maxIndex = 100_000;

/** Evaluates a path's bracket expressions: a number is an index, anything else a key. */
export function resolvePath(state: RunState, path: CompiledPath): ResolvedSegment[] {
  return path.map((segment): ResolvedSegment => {
    if (segment.kind === "key" || segment.kind === "index") return segment;
    if (segment.kind === "wildcard") throw new TypeError("[*] cannot be written to");
    const value = callCellNow(state, segment.cell);
    if (typeof value !== "number") return { kind: "key", name: String(value) };
    // An index from data must not make a sparse array of millions of holes.
    if (!Number.isInteger(value) || value < 0 || value > maxIndex)
      throw new RangeError(`index ${value} is out of range (0 to ${maxIndex})`);
    return { kind: "index", index: value };
  });
}

function fail(mapping: CompiledMapping, reason: string): never {
  throw new BassError("MAPPING_FAILED", `${mapping.label}: ${reason} (field ${mapping.fieldText})`, {
    cell: mapping.label,
  });
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
