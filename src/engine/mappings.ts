import { BassError } from "../errors.js";
import { castValue } from "./cast.js";
import type { CompiledMapping, CompiledPath, CompiledServiceRequest } from "./compile.js";
import { type ResolvedSegment, writePath } from "./paths.js";
import { callCell, type RunState, reached, readCellValues, took, withBindings } from "./run-state.js";
import { copyOf, snapshot } from "./snapshot.js";
import { itemsOf } from "./validation.js";

/** Builds a service call's request payload from its field mappings, in order (docs/reference.md#service_requestsfield_mappings). */
export async function applyFieldMappings(
  state: RunState,
  request: CompiledServiceRequest,
): Promise<Record<string, unknown>> {
  const payload: Record<string, unknown> = {};
  for (const mapping of request.mappings) {
    if (!mapping.includeForEach) {
      await applyMapping(state, mapping, payload);
      continue;
    }
    const items = await itemsOf(state, mapping.includeForEach, mapping.label);
    for (const [fidx, fitem] of items.entries()) {
      await withBindings(state, { fitem, fidx }, () => applyMapping(state, mapping, payload));
    }
  }
  return payload;
}

async function applyMapping(
  state: RunState,
  mapping: CompiledMapping,
  payload: Record<string, unknown>,
): Promise<void> {
  if (mapping.includeIf && !took(state, mapping.includeIf, await callCell(state, mapping.includeIf))) return;
  reached(state, mapping.site);
  const given =
    "value" in mapping.source ? await callCell(state, mapping.source.value) : copyOf(mapping.source.literal);
  // The request holds plain data: what a cell made is read once, here, within a cell's time limit.
  const value = readCellValues(state, mapping.label, () => snapshot(mappedValue(mapping, given)));
  writePath(payload, await resolvePath(state, mapping.field), value);
}

/** A mapping's value through its value mapping set and its cast; null where it may be. */
function mappedValue(mapping: CompiledMapping, given: unknown): unknown {
  let value = given;
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
  return value;
}

const maxIndex = 100_000;

/** Evaluates a path's bracket expressions: a number is an index, anything else a key. */
export async function resolvePath(state: RunState, path: CompiledPath): Promise<ResolvedSegment[]> {
  const resolved: ResolvedSegment[] = [];
  for (const segment of path) {
    if (segment.kind === "wildcard") throw new TypeError("[*] cannot be written to");
    if (segment.kind !== "expression") {
      resolved.push(segment);
      continue;
    }
    const value = await callCell(state, segment.cell);
    resolved.push(readCellValues(state, segment.cell.label, () => toSegment(value)));
  }
  return resolved;
}

/** A bracket expression's value as a step: a number is an index, anything else a key. */
function toSegment(value: unknown): ResolvedSegment {
  if (typeof value !== "number") return { kind: "key", name: String(value) };
  // An index from data must not make a sparse array of millions of holes.
  if (!Number.isInteger(value) || value < 0 || value > maxIndex)
    throw new RangeError(`index ${value} is out of range (0 to ${maxIndex})`);
  return { kind: "index", index: value };
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
