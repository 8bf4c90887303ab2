import { stripEnvReferences } from "../env.js";
import type { LoadedFile } from "../load.js";
import { formatPath, type ValuePath } from "../value-path.js";
import type { Report } from "./report.js";

/** Last words of a name whose value is a credential: the token of `X-Auth-Token`, not of `X-Token-Name`. */
const sensitiveWords = new Set([
  "authorization",
  "cookie",
  "token",
  "secret",
  "password",
  "passwd",
  "credential",
  "credentials",
  "apikey",
]);
const authScheme = /^\s*(bearer|basic|token|digest|apikey)\b\s*/i;
const urlPassword = /:\/\/[^/@\s:]+:([^/@\s]+)@/;
const urlSecretParameter =
  /[?&](?:api[-_]?key|access[-_]?token|token|password|secret|sig|signature)=([^&#\s]+)/i;
/** Shapes of well-known credentials; one in a definition is a leak whatever key holds it. */
const credentialShapes: [RegExp, string][] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, "a private key"],
  [/\bAKIA[0-9A-Z]{16}\b/, "an AWS access key id"],
  [/\b[sprk]k_live_[0-9A-Za-z]{16,}/, "a live API key"],
  [/\bgh[pousr]_[A-Za-z0-9]{36,}\b/, "a GitHub token"],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/, "a Slack token"],
  [/\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/-]{12,}=*(?![^\s]*\$\{)/, "a credential in an Authorization value"],
];
/** Whether any of the shapes is in a text: one scan of each string instead of one per shape. */
const anyCredentialShape = new RegExp(credentialShapes.map(([pattern]) => `(?:${pattern.source})`).join("|"));

/** Literals that look like secrets: credentials belong in the environment, read with `${env:NAME}`. */
export function lintSecrets(loaded: LoadedFile<unknown>, report: Report): void {
  const flag = (at: ValuePath, what: string) =>
    report(
      "secret-literal",
      `${what} is written in ${formatPath(at)}; read it from the environment with \${env:NAME}`,
      at,
      { target: "value", sensitive: true },
    );

  visitStrings(loaded.source.value, [], (text, path, parent) => {
    const written = stripEnvReferences(text);
    const shape = anyCredentialShape.test(written)
      ? credentialShapes.find(([pattern]) => pattern.test(written))
      : undefined;
    if (shape) return flag(path, shape[1]);
    const password = urlPassword.exec(text)?.[1];
    if (password && hasLiteral(password)) return flag(path, "a password in a URL");
    const parameter = urlSecretParameter.exec(text)?.[1];
    if (parameter && hasLiteral(parameter)) return flag(path, "a secret in a URL query");
    if (isSecretSlot(path, parent) && hasLiteral(text.replace(authScheme, "")))
      return flag(path, "a credential");
  });
}

/**
 * Whether text holds something written in the file besides `${env:…}` references: a letter or digit.
 * The colon of `${env:USER}:${env:PASSWORD}` or a space between references is no secret.
 */
function hasLiteral(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(stripEnvReferences(text));
}

/** Keys whose value is a credential: sensitive headers, serve tokens and passwords, a mapping onto such a field. */
function isSecretSlot(path: ValuePath, parent: unknown): boolean {
  const key = String(path.at(-1) ?? "");
  const container = path.at(-2);
  if (container === "tokens" || container === "users") return path.includes("auth");
  if (container === "headers") return isSensitiveName(key);
  if (key === "literal" && typeof (parent as { field?: unknown }).field === "string") {
    const lastName = /([^.[\]"']+)["']?\]?$/.exec((parent as { field: string }).field)?.[1] ?? "";
    return isSensitiveName(lastName);
  }
  return false;
}

/** Whether a header or field name ends in a word for a credential: `X-Auth-Token`, `X-Api-Key`, `accessToken`. */
function isSensitiveName(name: string): boolean {
  const words = name
    .split(/[-_\s]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter((word) => word !== "")
    .map((word) => word.toLowerCase());
  return sensitiveWords.has(words.at(-1) ?? "") || words.slice(-2).join("") === "apikey";
}

/**
 * Calls `visit` with every string in a value. `path` is one array, changed as the walk goes on: it holds
 * the string's place only during the call (a copy of every path for every value costs more than the rule).
 */
function visitStrings(
  value: unknown,
  path: (string | number)[],
  visit: (text: string, path: ValuePath, parent: unknown) => void,
  parent?: unknown,
): void {
  if (typeof value === "string") visit(value, path, parent);
  else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index);
      visitStrings(value[index], path, visit, value);
      path.pop();
    }
  } else if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value)) {
      path.push(key);
      visitStrings((value as Record<string, unknown>)[key], path, visit, value);
      path.pop();
    }
  }
}
