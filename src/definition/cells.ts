import { parseFieldPath } from "./field-path.js";
import { objectItems } from "./object-items.js";
import { type Definition, integrationHooks, serviceRequestHooks } from "./types.js";
import { formatPath, type ValuePath } from "./value-path.js";

/** Every loop variable of docs/reference.md#cells-namespace-and-special-functions. */
export const loopVariables = [
  "sritem",
  "sridx",
  "fitem",
  "fidx",
  "vritem",
  "vridx",
  "_",
  "vrmsg",
  "mitem",
  "midx",
] as const;

/** The special functions, in every cell's namespace. */
export const specialFunctionNames = [
  "end",
  "map_value",
  "historize",
  "debug",
  "console",
  "keep",
  "add_run_label",
  "humanize",
  "bytes",
  "get_namespace",
  "callint",
  "calladapter",
  "decimal",
  "data_utils",
  "open_vault",
  "open_file",
  "list_files",
  "import_module",
] as const;

/** The run's own variables, in every cell's namespace: its request, its answer and its id. */
export const runVariableNames = ["input", "output", "run_history_id", "parentint"] as const;

export type LoopVariable = (typeof loopVariables)[number];

/** One code cell of a definition, where it sits and which loop variables it sees. */
export interface CellRef {
  /** Path of the YAML value that holds the code. */
  path: ValuePath;
  /** How errors name the cell, e.g. `service_requests[0].field_mappings[2].value`. */
  label: string;
  code: string;
  bindings: readonly LoopVariable[];
  /** For a bracket expression inside a field path: where its code starts in that string. */
  offset?: number;
}

const serviceRequestLoop = ["sritem", "sridx"] as const;
const fieldLoop = ["fitem", "fidx"] as const;
const ruleLoop = ["vritem", "vridx", "_", "vrmsg"] as const;
const maskLoop = ["mitem", "midx"] as const;

const fieldAndServiceRequestLoops = [...fieldLoop, ...serviceRequestLoop] as const;

/** Adds the cell at `key` of `parent` when `code` is one (a string that is not blank). */
type AddCell = (
  parent: ValuePath,
  key: string,
  code: unknown,
  bindings: readonly LoopVariable[],
  offset?: number,
) => void;

/** Lists every code cell of a definition, in file order, with the loop variables bound in each. */
export function listCells(definition: Definition): CellRef[] {
  const cells: CellRef[] = [];
  // Most keys hold no cell: the path is made only for one that does, and its label only when shown.
  const add: AddCell = (parent, key, code, bindings, offset) => {
    if (typeof code !== "string" || code.trim() === "") return;
    const path = [...parent, key];
    const cell: CellRef = {
      path,
      get label() {
        return formatPath(path);
      },
      code,
      bindings,
    };
    if (offset !== undefined) cell.offset = offset;
    cells.push(cell);
  };
  // REQUEST/RESPONSE rules and RESPONSE masks run inside their service request's calls.
  const callBindings = (type: string, serviceRequest: unknown) =>
    type !== "INPUT" && typeof serviceRequest === "string" ? serviceRequestLoop : [];

  for (const hook of integrationHooks) add([], hook, definition[hook], []);

  for (const [mask, index] of objectItems(definition.masks)) {
    add(["masks", index], "apply_if", mask.apply_if, [
      ...maskLoop,
      ...callBindings(mask.type, mask.service_request),
    ]);
  }

  for (const [rule, index] of objectItems(definition.validation_rules)) {
    const at = ["validation_rules", index];
    const outer = callBindings(rule.type, rule.service_request);
    const bindings = [...ruleLoop, ...outer];
    for (const key of ["field", "rule", "apply_if", "pass_hook", "fail_hook"] as const) {
      add(at, key, rule[key], bindings);
    }
    add(at, "apply_to_each", rule.apply_to_each, outer);
  }

  for (const [request, index] of objectItems(definition.service_requests)) {
    addServiceRequestCells(add, ["service_requests", index], request);
  }
  return cells;
}

type ServiceRequest = NonNullable<Definition["service_requests"]>[number];

/** The cells of one service request at `base`, its field mappings' among them. */
function addServiceRequestCells(add: AddCell, base: ValuePath, request: ServiceRequest): void {
  add(base, "call_for_each", request.call_for_each, []);
  add(base, "call_if", request.call_if, serviceRequestLoop);
  for (const hook of serviceRequestHooks) add(base, hook, request[hook], serviceRequestLoop);
  for (const [mapping, mappingIndex] of objectItems(request.field_mappings)) {
    const at = [...base, "field_mappings", mappingIndex];
    const inner = fieldAndServiceRequestLoops;
    add(at, "include_for_each", mapping.include_for_each, serviceRequestLoop);
    add(at, "include_if", mapping.include_if, inner);
    add(at, "value", mapping.value, inner);
    // Only a bracket holds code in a field path.
    const parsed =
      typeof mapping.field === "string" && mapping.field.includes("[")
        ? parseFieldPath(mapping.field)
        : undefined;
    for (const segment of parsed?.ok ? parsed.segments : []) {
      if (segment.kind === "expression") add(at, "field", segment.code, inner, segment.offset);
    }
  }
}

/** A definition's text as JSON, made once per loaded definition, for `mayCall`. */
const definitionTexts = new WeakMap<Definition, string>();

/**
 * Whether a definition's cells may call a special function: its name appears in them. A name a cell
 * builds at run time is not seen, so this says where machinery for the call is worth setting up only.
 */
export function mayCall(definition: Definition, name: (typeof specialFunctionNames)[number]): boolean {
  let text = definitionTexts.get(definition);
  if (text === undefined) {
    text = JSON.stringify(definition);
    definitionTexts.set(definition, text);
  }
  return text.includes(name);
}

/**
 * A number for a cell's label, which a worker can write in shared memory as it runs the cell: the thread
 * that ends a stuck worker finds the cell again among the definition's (`listCells`). FNV-1a, 32 bits.
 */
export function cellKey(label: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < label.length; index++) {
    hash ^= label.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}
