/** The shape of a definition file (docs/reference.md#definition-file) and of the project file (docs/reference.md#project-file), as the schema allows them. */

/** JavaScript source of a code cell (docs/reference.md#cells-namespace-and-special-functions); `null` or absent means "none". */
export type Cell = string | null;

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type MaskType = "INPUT" | "RESPONSE";
export type RuleType = "INPUT" | "REQUEST" | "RESPONSE";
export type ValueType = "string" | "integer" | "number" | "decimal" | "boolean" | "object" | "array";

export interface Endpoint {
  method: HttpMethod;
  path: string;
  /** A JSON Schema of the query parameters (an object schema). */
  params?: Record<string, unknown>;
  /** What the endpoint answers, by status or `default`. */
  responses?: Record<string, { description: string; schema?: Record<string, unknown> | boolean }>;
}

export interface ValueMapping {
  from: string | number | boolean;
  to: string;
}

export interface ValueMappingSet {
  name: string;
  case_sensitive?: boolean;
  default_to_value?: string;
  mappings: ValueMapping[];
}

export interface Mask {
  type: MaskType;
  service_request?: string | null;
  sequence?: number;
  field: string;
  apply_to_each?: string | null;
  apply_if?: Cell;
  abort_if_not_applied_x_times?: number;
}

export interface ValidationRule {
  type: RuleType;
  service_request?: string | null;
  sequence?: number;
  field: Cell;
  rule: Cell;
  message?: string | null;
  apply_if?: Cell;
  apply_to_each?: Cell;
  abort_on_failure?: boolean;
  message_substitution_name?: string | null;
  pass_hook?: Cell;
  fail_hook?: Cell;
}

export interface FieldMapping {
  field: string;
  literal?: unknown;
  value?: Cell;
  value_type?: ValueType | null;
  nullable?: boolean;
  include_if?: Cell;
  include_for_each?: Cell;
  value_mapping_set?: string | null;
  message_substitution_name?: string | null;
  sequence?: number;
}

/** The eight hooks of one service call, in the order they may run (docs/reference.md#service_requests). */
export const serviceRequestHooks = [
  "before_prepare_request_hook",
  "after_prepare_request_success_hook",
  "after_prepare_request_failure_hook",
  "before_execute_request_hook",
  "after_execute_request_success_hook",
  "after_execute_request_failure_hook",
  "after_overall_success_hook",
  "after_overall_failure_hook",
] as const;

export type ServiceRequestHook = (typeof serviceRequestHooks)[number];

export type ServiceRequest = {
  formula_variable: string;
  sequence?: number;
  system: string;
  service_name?: string;
  call_if?: Cell;
  call_for_each?: Cell;
  abort_after_execute_request_failure?: boolean;
  message_substitution_name?: string | null;
  field_mappings?: FieldMapping[];
} & { [hook in ServiceRequestHook]?: Cell };

/** The four hooks of an integration, in run order (docs/reference.md#how-a-run-uses-these-keys). */
export const integrationHooks = [
  "before_hook",
  "on_success_hook",
  "on_failure_hook",
  "finally_hook",
] as const;

export type IntegrationHook = (typeof integrationHooks)[number];

export type Definition = {
  name: string;
  description?: string;
  /** The language of its cells; javascript unless it says python. */
  language?: "javascript" | "python";
  active?: boolean;
  run_async?: boolean;
  http_api?: boolean;
  /** Runs it under bass serve at a fixed interval or on a cron pattern, with a static payload. */
  schedule?: { every?: string; cron?: string; tz?: string; payload?: unknown };
  timeout_ms?: number;
  endpoints?: Endpoint[];
  request_schema?: Record<string, unknown> | boolean;
  value_mapping_sets?: ValueMappingSet[];
  masks?: Mask[];
  validation_rules?: ValidationRule[];
  service_requests?: ServiceRequest[];
} & { [hook in IntegrationHook]?: Cell };

export interface RetryConfig {
  max?: number;
  backoff_ms?: number;
}

export interface SystemConfig {
  /** `http`, `echo`, or a path to a module exporting `execute` (docs/behaviour.md#systems-and-adapters). */
  adapter: string;
  base_url?: string;
  timeout_ms?: number;
  retries?: RetryConfig;
  headers?: Record<string, string>;
  /** Free-form settings for a module adapter. */
  options?: Record<string, unknown>;
}

export type ServeAuth =
  | { type: "none" }
  | { type: "bearer"; tokens: string[] }
  | { type: "basic"; users: Record<string, string> };

export interface ServeConfig {
  host?: string;
  port?: number;
  auth?: ServeAuth;
  body_limit_bytes?: number;
  max_concurrent_runs?: number;
  idempotency_ttl_s?: number;
  workers?: number;
  allowed_hosts?: string[];
  allowed_origins?: string[];
  request_timeout_ms?: number;
  headers_timeout_ms?: number;
  max_connections?: number;
}

export interface HistoryConfig {
  dir?: string;
  store_payloads?: boolean;
  keep_requests?: boolean;
  max_runs?: number;
  max_item_bytes?: number;
}

export interface LimitsConfig {
  cell_timeout_ms?: number;
  run_timeout_ms?: number;
  cell_memory_mb?: number;
  output_bytes?: number;
}

export interface MockcoreConfig {
  data?: string;
}

export interface ProjectConfig {
  integrations?: string | string[];
  systems?: Record<string, SystemConfig>;
  mockcore?: MockcoreConfig;
  history?: HistoryConfig;
  serve?: ServeConfig;
  limits?: LimitsConfig;
  vaults?: Record<string, VaultConfig>;
  /** Shared modules cells import with import_module(name): name → file, relative to the project file. */
  modules?: Record<string, string>;
}

/** What a vault starts with: items and secrets written for each key it does not hold yet. */
export interface VaultConfig {
  items?: Record<string, unknown>;
  secrets?: Record<string, string>;
}
