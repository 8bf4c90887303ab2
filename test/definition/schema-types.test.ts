import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type {
  Definition,
  Endpoint,
  FieldMapping,
  HistoryConfig,
  LimitsConfig,
  Mask,
  MaskType,
  MockcoreConfig,
  ProjectConfig,
  RuleType,
  ServeConfig,
  ServiceRequest,
  SystemConfig,
  ValidationRule,
  ValueMappingSet,
  ValueType,
} from "../../src/definition/types.js";

// Each list must name every key of its TypeScript type, and nothing else: `satisfies` fails the type check
// when the type gains or loses a key. The tests below then hold the lists to the JSON Schema.
type Keys<T> = { [key in keyof Required<T>]: true };
const keys = {
  definition: {
    name: true,
    description: true,
    language: true,
    active: true,
    run_async: true,
    http_api: true,
    schedule: true,
    timeout_ms: true,
    endpoints: true,
    request_schema: true,
    before_hook: true,
    on_success_hook: true,
    on_failure_hook: true,
    finally_hook: true,
    value_mapping_sets: true,
    masks: true,
    validation_rules: true,
    service_requests: true,
  } satisfies Keys<Definition>,
  endpoint: { method: true, path: true, params: true, responses: true } satisfies Keys<Endpoint>,
  valueMappingSet: {
    name: true,
    case_sensitive: true,
    default_to_value: true,
    mappings: true,
  } satisfies Keys<ValueMappingSet>,
  mask: {
    type: true,
    service_request: true,
    sequence: true,
    field: true,
    apply_to_each: true,
    apply_if: true,
    abort_if_not_applied_x_times: true,
  } satisfies Keys<Mask>,
  validationRule: {
    type: true,
    service_request: true,
    sequence: true,
    field: true,
    rule: true,
    message: true,
    apply_if: true,
    apply_to_each: true,
    abort_on_failure: true,
    message_substitution_name: true,
    pass_hook: true,
    fail_hook: true,
  } satisfies Keys<ValidationRule>,
  fieldMapping: {
    field: true,
    literal: true,
    value: true,
    value_type: true,
    nullable: true,
    include_if: true,
    include_for_each: true,
    value_mapping_set: true,
    message_substitution_name: true,
    sequence: true,
  } satisfies Keys<FieldMapping>,
  serviceRequest: {
    formula_variable: true,
    sequence: true,
    system: true,
    service_name: true,
    call_if: true,
    call_for_each: true,
    abort_after_execute_request_failure: true,
    message_substitution_name: true,
    before_prepare_request_hook: true,
    after_prepare_request_success_hook: true,
    after_prepare_request_failure_hook: true,
    before_execute_request_hook: true,
    after_execute_request_success_hook: true,
    after_execute_request_failure_hook: true,
    after_overall_success_hook: true,
    after_overall_failure_hook: true,
    field_mappings: true,
  } satisfies Keys<ServiceRequest>,
  project: {
    integrations: true,
    systems: true,
    mockcore: true,
    history: true,
    serve: true,
    limits: true,
    vaults: true,
    modules: true,
  } satisfies Keys<ProjectConfig>,
  system: {
    adapter: true,
    base_url: true,
    timeout_ms: true,
    retries: true,
    headers: true,
    options: true,
  } satisfies Keys<SystemConfig>,
  history: {
    dir: true,
    store_payloads: true,
    keep_requests: true,
    max_runs: true,
    max_item_bytes: true,
  } satisfies Keys<HistoryConfig>,
  serve: {
    host: true,
    port: true,
    auth: true,
    body_limit_bytes: true,
    max_concurrent_runs: true,
    idempotency_ttl_s: true,
    workers: true,
    allowed_hosts: true,
    allowed_origins: true,
    request_timeout_ms: true,
    headers_timeout_ms: true,
    max_connections: true,
  } satisfies Keys<ServeConfig>,
  limits: {
    cell_timeout_ms: true,
    run_timeout_ms: true,
    cell_memory_mb: true,
    output_bytes: true,
  } satisfies Keys<LimitsConfig>,
  mockcore: { data: true } satisfies Keys<MockcoreConfig>,
};
const enums = {
  maskType: { INPUT: true, RESPONSE: true } satisfies Record<MaskType, true>,
  ruleType: { INPUT: true, REQUEST: true, RESPONSE: true } satisfies Record<RuleType, true>,
  valueType: {
    string: true,
    integer: true,
    number: true,
    decimal: true,
    boolean: true,
    object: true,
    array: true,
  } satisfies Record<ValueType, true>,
  method: { GET: true, POST: true, PUT: true, PATCH: true, DELETE: true } satisfies Record<
    Endpoint["method"],
    true
  >,
};

type Schema = {
  properties?: Record<string, Schema>;
  $defs?: Record<string, Schema>;
  enum?: unknown[];
  additionalProperties?: unknown;
};
const schemaFile = (name: string) => new URL(`../../schema/${name}.schema.json`, import.meta.url);
const definition = JSON.parse(readFileSync(schemaFile("definition"), "utf8")) as Schema & {
  $defs: Record<string, Schema>;
};
const project = JSON.parse(readFileSync(schemaFile("project"), "utf8")) as Schema & {
  $defs: Record<string, Schema>;
};
const propertiesOf = (schema: Schema | undefined) => Object.keys(schema?.properties ?? {}).sort();

describe("the JSON Schemas and the TypeScript types", () => {
  it.each([
    ["definition", definition, keys.definition],
    ["endpoint", definition.$defs.endpoint, keys.endpoint],
    ["valueMappingSet", definition.$defs.valueMappingSet, keys.valueMappingSet],
    ["mask", definition.$defs.mask, keys.mask],
    ["validationRule", definition.$defs.validationRule, keys.validationRule],
    ["fieldMapping", definition.$defs.fieldMapping, keys.fieldMapping],
    ["serviceRequest", definition.$defs.serviceRequest, keys.serviceRequest],
    ["project", project, keys.project],
    ["system", project.$defs.system, keys.system],
    ["history", project.properties?.history, keys.history],
    ["serve", project.properties?.serve, keys.serve],
    ["limits", project.properties?.limits, keys.limits],
    ["mockcore", project.properties?.mockcore, keys.mockcore],
  ])("%s has the same keys in both", (_name, schema, typeKeys) => {
    expect(propertiesOf(schema)).toEqual(Object.keys(typeKeys).sort());
    expect(schema?.additionalProperties).toBe(false);
  });

  it.each([
    ["mask type", definition.$defs.mask?.properties?.type?.enum, enums.maskType],
    ["rule type", definition.$defs.validationRule?.properties?.type?.enum, enums.ruleType],
    [
      "value_type",
      definition.$defs.fieldMapping?.properties?.value_type?.enum?.filter((v) => v !== null),
      enums.valueType,
    ],
    ["method", definition.$defs.endpoint?.properties?.method?.enum, enums.method],
  ])("%s allows the same values in both", (_name, values, typeValues) => {
    expect([...(values ?? [])].sort()).toEqual(Object.keys(typeValues).sort());
  });
});
