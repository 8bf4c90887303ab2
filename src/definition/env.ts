import { setOwn } from "../objects.js";
import type { Issue } from "./issue.js";
import type { ValuePath } from "./value-path.js";
import type { YamlSource } from "./yaml-source.js";

/** `${env:NAME}` or `${env:NAME:-default}`. */
const envReference = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface UnsetVariable {
  name: string;
  /** The string that holds the reference. */
  path: ValuePath;
  /** Where the reference starts inside that string: 1-based line, 0-based column (as `locateInString` takes them). */
  line: number;
  column: number;
}

export interface ResolvedEnv<T> {
  value: T;
  /** Values that came from the environment (never printed; scrubbed from run history). */
  secrets: string[];
  unset: UnsetVariable[];
}

/** Replaces every `${env:…}` reference in the strings of a value; an unset one without default becomes "". */
export function resolveEnv<T>(value: T, env: Readonly<Record<string, string | undefined>>): ResolvedEnv<T> {
  const secrets = new Set<string>();
  const unset: UnsetVariable[] = [];

  // One path array, changed as the walk goes on, copied only for an unset variable: most strings have no reference.
  const path: (string | number)[] = [];
  const resolveString = (text: string): string => {
    if (!text.includes("${env:")) return text;
    const isPublic = path.at(-1) === "base_url";
    return text.replace(
      envReference,
      (_match, name: string, fallback: string | undefined, offset: number) => {
        const fromEnv = env[name];
        if (fromEnv !== undefined) {
          if (!isPublic && fromEnv !== "") secrets.add(fromEnv);
          return fromEnv;
        }
        if (fallback === undefined) {
          const before = text.slice(0, offset);
          const lineStart = before.lastIndexOf("\n") + 1;
          unset.push({ name, path: [...path], line: before.split("\n").length, column: offset - lineStart });
        }
        return fallback ?? "";
      },
    );
  };

  const visitAt = (key: string | number, node: unknown): unknown => {
    path.push(key);
    const item = visit(node);
    path.pop();
    return item;
  };
  const visit = (node: unknown): unknown => {
    if (typeof node === "string") return resolveString(node);
    if (Array.isArray(node)) return node.map((item, index) => visitAt(index, item));
    if (node === null || typeof node !== "object") return node;
    const copy: Record<string, unknown> = {};
    // `__proto__` stays a plain key, as the YAML parser left it.
    for (const [key, item] of Object.entries(node)) setOwn(copy, key, visitAt(key, item));
    return copy;
  };

  return { value: visit(value) as T, secrets: [...secrets], unset };
}

/** The text with every `${env:…}` reference removed: what is literally written in the file. */
export function stripEnvReferences(text: string): string {
  return text.includes("${env:") ? text.replace(envReference, "") : text;
}

/** A file's value with `${env:…}` resolved, its secrets, and an `env-unset` warning for each unset variable. */
export function resolveFileEnv<T>(
  source: YamlSource,
  env: Readonly<Record<string, string | undefined>>,
): { value: T; secrets: string[]; issues: Issue[] } {
  // Most files hold no reference: their value is used as parsed, without a copy.
  if (!source.text.includes("${env:")) return { value: source.value as T, secrets: [], issues: [] };
  const resolved = resolveEnv(source.value, env);
  const issues = resolved.unset.map(
    ({ name, path, line, column }): Issue => ({
      file: source.file,
      ...source.locateInString(path, line, column),
      severity: "warning",
      rule: "env-unset",
      message: `environment variable ${name} is not set and has no default; set it or write \${env:${name}:-default}`,
      at: path,
    }),
  );
  return { value: resolved.value as T, secrets: resolved.secrets, issues };
}
