import { suggestion } from "../../suggest.js";
import { compareIssues, hasFailures, type Issue } from "../issue.js";
import type { LoadedDefinition, LoadedFile, LoadedProject } from "../load.js";
import type { Definition, ProjectConfig } from "../types.js";
import type { Position } from "../value-path.js";
import { type CallintReference, lintCells } from "./lint-cells.js";
import { lintPythonCells } from "./lint-python-cells.js";
import { endpointKey, lintReferences, type ReferenceContext } from "./lint-references.js";
import { lintSecrets } from "./lint-secrets.js";
import { createReport, type Report } from "./report.js";

/** The findings of one definition, and the summary that the rules across definitions compare, so the definition itself can be let go. */
export interface DefinitionLint {
  file: string;
  issues: Issue[];
  /** Integrations its cells `callint` by a literal name: judged once every definition is known. */
  callints?: CallintReference[];
  /** Some Python cell needs CPython to be read, and it is not loaded here: lint again once it is. */
  needsPython?: true;
  /** Present when the definition's shape passed the schema. */
  identity?: { name: string; at: Position; endpoints: { key: string; at: Position }[] };
}

/** Every finding of a project: its files' own problems, each definition's rules, and clashes between definitions. */
export function lintProject(project: LoadedProject, options: LintOptions = {}): Issue[] {
  const context = createReferenceContext(project.config, options);
  const lints = project.definitions.map((definition) => lintDefinition(definition, context));
  return collectIssues([...project.issues, ...lintProjectFile(project.config)], lints, { whole: true });
}

/**
 * The findings of a validation in file order: the project's own, each definition's, and those across
 * definitions; with `whole` (every definition of the project was linted), also each `callint` of an
 * integration the project does not have.
 */
export function collectIssues(
  projectIssues: readonly Issue[],
  lints: readonly DefinitionLint[],
  { whole }: { whole: boolean },
): Issue[] {
  return [
    ...projectIssues,
    ...lints.flatMap((lint) => lint.issues),
    ...lintAcrossDefinitions(lints),
    ...(whole ? unknownCallints(lints) : []),
  ].sort(compareIssues);
}

/** A `callint` of a name no definition of the project has. */
function unknownCallints(lints: readonly DefinitionLint[]): Issue[] {
  const names = lints.flatMap((lint) => (lint.identity ? [lint.identity.name] : []));
  const known = new Set(names);
  return lints.flatMap(({ file, callints = [] }) =>
    callints
      .filter((reference) => !known.has(reference.name))
      .map((reference) => ({
        file,
        ...reference.at,
        severity: "error" as const,
        rule: "unknown-integration" as const,
        message: `${reference.cell}: callint names no integration ${JSON.stringify(reference.name)} of the project${suggestion(reference.name, names)}`,
      })),
  );
}

export interface LintOptions {
  /** Check each `request_schema` (default true); only serve uses them. */
  requestSchemas?: boolean;
}

/** What references in definitions are checked against: the systems of a usable project file, as written. */
export function createReferenceContext(
  config: LoadedFile<ProjectConfig> | undefined,
  options: LintOptions = {},
): ReferenceContext {
  const usable = config !== undefined && !hasFailures(config.issues);
  const written = usable ? (config.source.value as ProjectConfig | null) : undefined;
  return {
    systems: usable ? (written?.systems ?? {}) : undefined,
    requestSchemas: options.requestSchemas ?? true,
    vaults: written?.vaults ? new Set(Object.keys(written.vaults)) : undefined,
    modules: usable ? new Set(Object.keys(written?.modules ?? {})) : undefined,
  };
}

/** The project file's own findings. */
export function lintProjectFile(config: LoadedFile<ProjectConfig>): Issue[] {
  const issues = [...config.issues];
  runLintRules(config, issues, [(report) => lintSecrets(config, report)]);
  return issues;
}

/** One definition's findings: loading, schema, and every semantic rule of one file. */
export function lintDefinition(definition: LoadedDefinition, context: ReferenceContext): DefinitionLint {
  const issues = [...definition.issues];
  const callints: CallintReference[] = [];
  let needsPython = false;
  const shapeValid = runLintRules(definition, issues, [
    (report) => {
      if ((definition.source.value as Definition).language !== "python")
        lintCells(definition, report, (reference) => callints.push(reference), context);
      else needsPython = !lintPythonCells(definition, report);
    },
    (report) => lintReferences(definition, context, report),
    (report) => lintSecrets(definition, report),
  ]);
  const lint: DefinitionLint = { file: definition.file, issues };
  if (needsPython) lint.needsPython = true;
  if (!shapeValid) return lint;
  const { name, endpoints = [] } = definition.source.value as Definition;
  const { locate } = definition.source;
  lint.callints = callints;
  lint.identity = {
    name,
    at: locate(["name"]),
    endpoints: endpoints.map((endpoint, index) => ({
      key: endpointKey(endpoint.method, endpoint.path),
      at: locate(["endpoints", index]),
    })),
  };
  return lint;
}

/**
 * Runs a file's semantic rules unless it is not YAML at all; says whether its shape passed the schema.
 * Where the schema already failed, the rules still run so that every problem shows at once; they skip
 * items of the wrong shape, and should one still trip over a shape nobody foresaw, only that rule stops
 * (the schema findings say what is wrong) while the others' findings stay.
 */
function runLintRules(
  file: LoadedFile<unknown>,
  issues: Issue[],
  rules: readonly ((report: Report) => void)[],
): boolean {
  if (hasFailures(file.issues.filter((issue) => issue.rule === "yaml-syntax"))) return false;
  if (file.source.value === null || typeof file.source.value !== "object") return false;
  const shapeValid = !file.issues.some((issue) => issue.rule.startsWith("schema-"));
  const report = createReport(file, issues);
  for (const rule of rules) {
    try {
      rule(report);
    } catch (error) {
      if (shapeValid) throw error;
    }
  }
  return shapeValid;
}

/** Names and endpoints are unique in a project: the second of a pair is reported. */
function lintAcrossDefinitions(lints: readonly DefinitionLint[]): Issue[] {
  const issues: Issue[] = [];
  const report = (
    file: string,
    at: Position,
    rule: "duplicate-name" | "duplicate-endpoint",
    message: string,
  ) => issues.push({ file, ...at, severity: "error", rule, message });
  const fileByName = new Map<string, string>();
  const ownerByEndpoint = new Map<string, { name: string; file: string }>();
  for (const { file, identity } of lints) {
    if (!identity) continue;
    const first = fileByName.get(identity.name);
    if (first)
      report(
        file,
        identity.at,
        "duplicate-name",
        `integration name ${JSON.stringify(identity.name)} is also used by ${JSON.stringify(first)}`,
      );
    else fileByName.set(identity.name, file);
    for (const { key, at } of identity.endpoints) {
      const owner = ownerByEndpoint.get(key);
      if (!owner) ownerByEndpoint.set(key, { name: identity.name, file });
      else if (owner.file !== file)
        report(
          file,
          at,
          "duplicate-endpoint",
          `endpoint ${JSON.stringify(key)} is also served by ${JSON.stringify(owner.name)} (${JSON.stringify(owner.file)})`,
        );
    }
  }
  return issues;
}
