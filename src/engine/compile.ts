import type { CellRef } from "../definition/cells.js";
import { loopVariables, runVariableNames, specialFunctionNames } from "../definition/cells.js";
import { type PathSegment, parseFieldPath } from "../definition/field-path.js";
import type { LoadedDefinition } from "../definition/load.js";
import {
  type Cell,
  type Definition,
  type IntegrationHook,
  integrationHooks,
  type ServiceRequestHook,
  serviceRequestHooks,
  type ValueType,
} from "../definition/types.js";
import { formatPath, type ValuePath } from "../definition/value-path.js";
import { BassError } from "../errors.js";
import { type CompiledCell, compileCell, type PrepareCell } from "./cell.js";
import type { CoverageSite } from "./coverage.js";
import { humanNames } from "./humanize.js";
import type { MatchSegment } from "./paths.js";
import { compilePythonCell } from "./python-cell.js";
import type { CellRealm } from "./realm.js";
import { createValueMapper } from "./value-mapping.js";

/** A field path whose bracket expressions are compiled cells. */
export type CompiledPath = (
  | Exclude<PathSegment, { kind: "expression" }>
  | { kind: "expression"; cell: CompiledCell }
)[];

export interface CompiledMask {
  label: string;
  site: CoverageSite;
  /** Mask paths hold names, indexes and `[*]` only (validate's field-path rule). */
  field: MatchSegment[];
  applyToEach: MatchSegment[] | undefined;
  applyIf: CompiledCell | undefined;
  minimum: number;
}

export interface CompiledRule {
  /** The rule's `field` text: the label of its VALIDATION_FAILURE items. */
  label: string;
  site: CoverageSite;
  message: string;
  field: CompiledCell;
  rule: CompiledCell;
  applyIf: CompiledCell | undefined;
  applyToEach: CompiledCell | undefined;
  abortOnFailure: boolean;
  passHook: CompiledCell | undefined;
  failHook: CompiledCell | undefined;
}

export interface CompiledMapping {
  /** How errors name the mapping: `service_requests[0].field_mappings[2]`. */
  label: string;
  site: CoverageSite;
  fieldText: string;
  field: CompiledPath;
  source: { literal: unknown } | { value: CompiledCell };
  valueType: ValueType | undefined;
  nullable: boolean;
  includeIf: CompiledCell | undefined;
  includeForEach: CompiledCell | undefined;
  mapValue: ((value: unknown) => unknown) | undefined;
}

export interface CompiledServiceRequest {
  formulaVariable: string;
  site: CoverageSite;
  system: string;
  serviceName: string;
  callIf: CompiledCell | undefined;
  callForEach: CompiledCell | undefined;
  abortOnFailure: boolean;
  hooks: Partial<Record<ServiceRequestHook, CompiledCell>>;
  mappings: CompiledMapping[];
  requestRules: CompiledRule[];
  responseRules: CompiledRule[];
  responseMasks: CompiledMask[];
}

/** A definition ready to run many times: cells compiled, lists in `sequence` order, sets indexed. */
export interface CompiledIntegration {
  name: string;
  file: string;
  definition: Definition;
  hooks: Partial<Record<IntegrationHook, CompiledCell>>;
  inputMasks: CompiledMask[];
  inputRules: CompiledRule[];
  serviceRequests: CompiledServiceRequest[];
  valueMappers: ReadonlyMap<string, (value: unknown) => unknown>;
  /** What `humanize` gives for the names of its parts (see humanize.ts). */
  humanNames: ReadonlyMap<string, string>;
  /** The names every run's namespace has from its start, which `keep` may not replace (docs/reference.md#cells-namespace-and-special-functions). */
  namespaceNames: ReadonlySet<string>;
  /** The realm its cells run in, shared by the integrations of one loaded project. */
  realm: CellRealm;
  /** Every place definition coverage counts, with its line in the file. */
  sites: readonly CoverageSite[];
}

/** Items in `sequence` order (default 0), ties in file order, each with its index in the file. */
function bySequence<T extends { sequence?: number | undefined }>(
  items: readonly T[],
): { item: T; index: number }[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => (a.item.sequence ?? 0) - (b.item.sequence ?? 0) || a.index - b.index);
}

/** Compiles every cell of a definition once, each as `prepare` gives its code. */
export function compileIntegration(
  loaded: LoadedDefinition,
  prepare: PrepareCell,
  realm: CellRealm,
): CompiledIntegration {
  const definition = loaded.value;
  const requests = definition.service_requests ?? [];
  const namespaceNames = new Set<string>([
    ...runVariableNames,
    ...specialFunctionNames,
    ...loopVariables,
    ...requests.map((r) => r.formula_variable),
  ]);
  const context = {
    integration: definition.name,
    file: loaded.file,
    namespaceNames,
    locateInString: loaded.source.locateInString,
    realm,
  };
  // Every place coverage counts, in the order of the file's keys as compiled.
  const sites: CoverageSite[] = [];
  const siteAt = (at: ValuePath, kind: CoverageSite["kind"], branch?: CoverageSite["branch"]) => {
    const site: CoverageSite = { key: formatPath(at), line: loaded.source.locate(at).line, kind, branch };
    sites.push(site);
    return site;
  };
  const cell = (path: ValuePath, code: Cell | undefined, offset?: number): CompiledCell | undefined => {
    if (typeof code !== "string" || code.trim() === "") return undefined;
    const compiled = compileAnyCell(path, code, offset);
    compiled.site = siteAt(path, "cell", branchOf(path));
    return compiled;
  };
  const compileAnyCell = (path: ValuePath, code: string, offset?: number): CompiledCell => {
    const ref: CellRef = {
      path,
      label: formatPath(path),
      code,
      bindings: [],
      ...(offset === undefined ? {} : { offset }),
    };
    return definition.language === "python"
      ? compilePythonCell(ref, context)
      : compileCell(ref, prepare(code, namespaceNames), context);
  };
  const requiredCell = (path: ValuePath, code: Cell | undefined): CompiledCell => {
    const compiled = cell(path, code);
    if (!compiled)
      throw new BassError("DEFINITION_INVALID", `${formatPath(path)} is empty`, {
        position: { file: loaded.file, ...loaded.source.locate(path) },
      });
    return compiled;
  };
  const path = (at: ValuePath, text: string): CompiledPath => {
    const parsed = parseFieldPath(text);
    if (!parsed.ok)
      throw new BassError("DEFINITION_INVALID", `${formatPath(at)}: cannot parse path "${text}"`, {
        position: { file: loaded.file, ...loaded.source.locate(at) },
      });
    return parsed.segments.map((segment) =>
      segment.kind === "expression"
        ? { kind: "expression", cell: cell(at, segment.code, segment.offset) as CompiledCell }
        : segment,
    );
  };

  const rules = bySequence(definition.validation_rules ?? []).map(({ item: rule, index }) => {
    const at = ["validation_rules", index] as const;
    const label = String(rule.field ?? "");
    const compiled: CompiledRule = {
      label,
      site: siteAt(at, "rule"),
      message: rule.message ?? `validation failed: ${label}`,
      field: requiredCell([...at, "field"], rule.field),
      rule: requiredCell([...at, "rule"], rule.rule),
      applyIf: cell([...at, "apply_if"], rule.apply_if),
      applyToEach: cell([...at, "apply_to_each"], rule.apply_to_each),
      abortOnFailure: rule.abort_on_failure ?? true,
      passHook: cell([...at, "pass_hook"], rule.pass_hook),
      failHook: cell([...at, "fail_hook"], rule.fail_hook),
    };
    return { rule, compiled };
  });
  const masks = bySequence(definition.masks ?? []).map(({ item: mask, index }) => {
    const at = ["masks", index] as const;
    const compiled: CompiledMask = {
      label: mask.field,
      site: siteAt(at, "mask"),
      field: matchPath(path([...at, "field"], mask.field)),
      applyToEach: mask.apply_to_each
        ? matchPath(path([...at, "apply_to_each"], mask.apply_to_each))
        : undefined,
      applyIf: cell([...at, "apply_if"], mask.apply_if),
      minimum: mask.abort_if_not_applied_x_times ?? 0,
    };
    return { mask, compiled };
  });
  const valueMappers = new Map(
    (definition.value_mapping_sets ?? []).map((set) => [set.name, createValueMapper(set)]),
  );

  const rulesOf = (type: string, request?: string) =>
    rules
      .filter(({ rule }) => rule.type === type && (request === undefined || rule.service_request === request))
      .map(({ compiled }) => compiled);
  const masksOf = (type: string, request?: string) =>
    masks
      .filter(({ mask }) => mask.type === type && (request === undefined || mask.service_request === request))
      .map(({ compiled }) => compiled);

  const serviceRequests = bySequence(requests).map(({ item: request, index }) => {
    const at = ["service_requests", index] as const;
    const mappings = bySequence(request.field_mappings ?? []).map(
      ({ item: mapping, index: mappingIndex }): CompiledMapping => {
        const mappingAt = [...at, "field_mappings", mappingIndex] as const;
        const valueCell = cell([...mappingAt, "value"], mapping.value);
        return {
          label: formatPath(mappingAt),
          site: siteAt(mappingAt, "mapping"),
          fieldText: mapping.field,
          field: path([...mappingAt, "field"], mapping.field),
          source: valueCell ? { value: valueCell } : { literal: mapping.literal ?? null },
          valueType: mapping.value_type ?? undefined,
          nullable: mapping.nullable ?? false,
          includeIf: cell([...mappingAt, "include_if"], mapping.include_if),
          includeForEach: cell([...mappingAt, "include_for_each"], mapping.include_for_each),
          mapValue: mapping.value_mapping_set ? valueMappers.get(mapping.value_mapping_set) : undefined,
        };
      },
    );
    const hooks = Object.fromEntries(
      serviceRequestHooks.flatMap((hook) => {
        const compiled = cell([...at, hook], request[hook]);
        return compiled ? [[hook, compiled]] : [];
      }),
    );
    return {
      formulaVariable: request.formula_variable,
      site: siteAt(at, "request"),
      system: request.system,
      serviceName: request.service_name ?? "n/a",
      callIf: cell([...at, "call_if"], request.call_if),
      callForEach: cell([...at, "call_for_each"], request.call_for_each),
      abortOnFailure: request.abort_after_execute_request_failure ?? true,
      hooks,
      mappings,
      requestRules: rulesOf("REQUEST", request.formula_variable),
      responseRules: rulesOf("RESPONSE", request.formula_variable),
      responseMasks: masksOf("RESPONSE", request.formula_variable),
    };
  });

  const hooks = Object.fromEntries(
    integrationHooks.flatMap((hook) => {
      const compiled = cell([hook], definition[hook]);
      return compiled ? [[hook, compiled]] : [];
    }),
  );
  return {
    name: definition.name,
    file: loaded.file,
    definition,
    hooks,
    inputMasks: masksOf("INPUT"),
    inputRules: rulesOf("INPUT"),
    serviceRequests,
    valueMappers,
    humanNames: humanNames(definition),
    namespaceNames,
    realm,
    sites,
  };
}

/** The branch a cell decides, by its key: a condition, a `call_for_each`'s items, a rule's verdict. */
function branchOf(path: ValuePath): CoverageSite["branch"] {
  const key = path.at(-1);
  if (key === "include_if" || key === "call_if" || key === "apply_if") return "condition";
  if (key === "call_for_each") return "each";
  return key === "rule" ? "rule" : undefined;
}

/** A mask's path without bracket expressions, which validate does not let it have. */
function matchPath(path: CompiledPath): MatchSegment[] {
  return path.filter((segment): segment is MatchSegment => segment.kind !== "expression");
}
