import type { ValuePath } from "./yaml-source.js";

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

  const resolveString = (text: string, path: ValuePath): string => {
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
          unset.push({ name, path, line: before.split("\n").length, column: offset - lineStart });
        }
        return fallback ?? "";
      },
    );
  };

  const visit = (node: unknown, path: ValuePath): unknown => {
    if (typeof node === "string") return resolveString(node, path);
    if (Array.isArray(node)) return node.map((item, index) => visit(item, [...path, index]));
    if (node !== null && typeof node === "object") {
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(node)) {
        // defineProperty, not assignment: a `__proto__` key stays a plain key, as the YAML parser left it.
        Object.defineProperty(copy, key, {
          value: visit(item, [...path, key]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return copy;
    }
    return node;
  };

  return { value: visit(value, []) as T, secrets: [...secrets], unset };
}

/** The text with every `${env:…}` reference removed: what is literally written in the file. */
export function stripEnvReferences(text: string): string {
  return text.replace(envReference, "");
}
