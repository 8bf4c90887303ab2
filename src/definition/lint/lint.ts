import { compareIssues, type Issue } from "../issue.js";
import type { LoadedDefinition, LoadedFile, LoadedProject } from "../load.js";
import type { ProjectConfig } from "../types.js";
import { lintCells } from "./lint-cells.js";
import { endpointKey, lintReferences, type ReferenceContext } from "./lint-references.js";
import { lintSecrets } from "./lint-secrets.js";
import { createReport, type Report } from "./report.js";

/** Every finding of a project: its files' own problems, each definition's rules, and clashes between definitions. */
export function lintProject(project: LoadedProject): Issue[] {
  return lintLoaded(project.config, project.definitions, project.issues);
}

/** Findings of definitions and, when given, the project file they belong to; sorted by file and position. */
export function lintLoaded(
  config: LoadedFile<ProjectConfig> | undefined,
  definitions: readonly LoadedDefinition[],
  projectIssues: readonly Issue[] = [],
): Issue[] {
  const issues: Issue[] = [...projectIssues];
  if (config) {
    issues.push(...config.issues);
    lintFile(config, issues, (report) => lintSecrets(config, report));
  }
  const configUsable = config !== undefined && !config.issues.some((issue) => issue.severity === "error");
  const context: ReferenceContext = { systems: configUsable ? (config.value?.systems ?? {}) : undefined };
  const checked = definitions.filter((definition) => {
    issues.push(...definition.issues);
    return lintFile(definition, issues, (report) => {
      lintCells(definition, report);
      lintReferences(definition, context, report);
      lintSecrets(definition, report);
    });
  });
  lintAcrossDefinitions(checked, issues);
  return issues.sort(compareIssues);
}

/**
 * Runs a file's semantic rules unless it is not YAML at all; says whether its shape passed the schema.
 * Where the schema already failed, the rules still run so that every problem shows at once, but a shape
 * they cannot walk (a string where a list belongs) ends them quietly: the schema findings say what is wrong.
 */
function lintFile(file: LoadedFile<unknown>, issues: Issue[], rules: (report: Report) => void): boolean {
  if (file.issues.some((issue) => issue.rule === "yaml-syntax" && issue.severity === "error")) return false;
  if (file.value === null || typeof file.value !== "object") return false;
  const shapeValid = !file.issues.some((issue) => issue.rule.startsWith("schema-"));
  const found: Issue[] = [];
  try {
    rules(createReport(file, found));
  } catch (error) {
    if (shapeValid) throw error;
  }
  issues.push(...found);
  return shapeValid;
}

/** Names and endpoints are unique in a project. */
function lintAcrossDefinitions(definitions: readonly LoadedDefinition[], issues: Issue[]): void {
  const firstByName = new Map<string, LoadedDefinition>();
  for (const definition of definitions) {
    const first = firstByName.get(definition.value.name);
    if (first) {
      createReport(definition, issues)(
        "duplicate-name",
        `integration name "${definition.value.name}" is also used by ${first.file}`,
        ["name"],
      );
    } else firstByName.set(definition.value.name, definition);
  }
  const ownerByEndpoint = new Map<string, LoadedDefinition>();
  for (const definition of definitions) {
    const report = createReport(definition, issues);
    const keys = new Set<string>();
    definition.value.endpoints?.forEach((endpoint, index) => {
      const key = endpointKey(endpoint.method, endpoint.path);
      const owner = ownerByEndpoint.get(key);
      if (owner && owner !== definition && !keys.has(key)) {
        report(
          "duplicate-endpoint",
          `endpoint ${key} is also served by ${owner.value.name} (${owner.file})`,
          ["endpoints", index],
        );
      }
      keys.add(key);
      if (!owner) ownerByEndpoint.set(key, definition);
    });
  }
}
