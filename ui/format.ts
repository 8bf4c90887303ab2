/** What the page makes of a record: commands to copy, a waterfall's geometry, the difference of two runs. */
import type { Item, RunRecord } from "./api.js";

interface InputData {
  method: string;
  fullpath: string;
  path: Record<string, string>;
  params: Record<string, unknown>;
  headers: Record<string, string>;
  payload: unknown;
}

function inputOf(record: RunRecord): InputData | undefined {
  const item = record.items.find((candidate) => candidate.kind === "INPUT");
  return item?.data as InputData | undefined;
}

/** Text as one shell word, in single quotes. */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Headers left out of a command that sends the request again: those a client sets itself, a browser's
 * own, and an Idempotency-Key, which would only replay the first answer.
 */
const unsentHeaders = new Set([
  "host",
  "content-length",
  "connection",
  "accept-encoding",
  "accept-language",
  "user-agent",
  "accept",
  "origin",
  "referer",
  "cookie",
  "idempotency-key",
]);

function sentHeaders(input: InputData): [string, string][] {
  return Object.entries(input.headers).filter(([header]) => {
    const name = header.toLowerCase();
    return !unsentHeaders.has(name) && !name.startsWith("sec-");
  });
}

function hasBody(input: InputData): boolean {
  return (
    input.payload !== undefined &&
    input.payload !== null &&
    !(input.method === "GET" || input.method === "HEAD")
  );
}

/** What the record holds in place of a masked value, and of a payload kept without its values. */
const maskText = "XXXXXXXXXXXX";
const redacted = "*REDACTED*";

/** The fields of the recorded request the record holds masked: a copy of it sends them so. */
export function maskedFields(record: RunRecord): string[] {
  const input = inputOf(record);
  if (!input) return [];
  const isMasked = (leaf: unknown) =>
    typeof leaf === "string" && (leaf.includes(maskText) || leaf === redacted);
  return (["payload", "params", "headers", "path"] as const).flatMap((part) =>
    [...leaves(input[part], part)].filter(([, leaf]) => isMasked(leaf)).map(([path]) => path),
  );
}

/** Each leaf of a value with its path (`a.b[0]`); an empty object or array is a leaf of its own. */
function* leaves(value: unknown, path = ""): Generator<[string, unknown]> {
  const entries = value !== null && typeof value === "object" ? Object.entries(value) : [];
  if (entries.length === 0) yield [path, value];
  for (const [key, inner] of entries) {
    yield* leaves(inner, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
  }
}

/** `bass run` of the recorded request in the project's folder, masked values as the record holds them. */
export function asBassRun(record: RunRecord, project?: string): string {
  const input = inputOf(record);
  const where = project ? ["--project", quote(project)] : [];
  if (!input) return ["npx bass run", quote(record.integration), ...where].join(" ");
  const words = ["npx bass run", quote(record.integration), ...where, "--method", quote(input.method)];
  for (const [name, value] of Object.entries(input.path)) words.push("--path", quote(`${name}=${value}`));
  for (const [name, value] of Object.entries(input.params))
    for (const one of Array.isArray(value) ? value : [value])
      words.push("--query", quote(`${name}=${String(one)}`));
  for (const [name, value] of sentHeaders(input))
    if (name.toLowerCase() !== "content-type") words.push("--header", quote(`${name}: ${value}`));
  if (!hasBody(input)) return words.join(" ");
  return `echo ${quote(JSON.stringify(input.payload))} | ${words.join(" ")} --input -`;
}

/** curl of the recorded request against this serve, masked values as the record holds them. */
export function asCurl(record: RunRecord, origin: string): string {
  const input = inputOf(record);
  if (!input) return `curl ${quote(origin)}`;
  const words = ["curl", "-X", quote(input.method), quote(origin + input.fullpath)];
  for (const [name, value] of sentHeaders(input)) words.push("-H", quote(`${name}: ${value}`));
  if (hasBody(input)) words.push("--data", quote(JSON.stringify(input.payload)));
  return words.join(" ");
}

/** Where an item sits on the run's time line, in percent of the run: a call from its start to its end. */
export function barOf(item: Item, record: RunRecord): { left: number; width: number } {
  const start = Date.parse(record.started_at);
  const total = Math.max(1, record.duration_ms ?? Date.now() - start);
  const end = Date.parse(item.at) - start;
  const duration = item.kind === "REQUEST" || item.kind === "CALLINT" ? (item.duration_ms ?? 0) : 0;
  const left = Math.min(100, Math.max(0, ((end - duration) / total) * 100));
  return { left, width: Math.max(0.5, Math.min(100 - left, (duration / total) * 100)) };
}

/** A difference of two runs: a path, and the value each run has there (undefined: none). */
export interface Change {
  path: string;
  a: string | undefined;
  b: string | undefined;
}

/** What differs between two runs, times and ids aside: status, each item's kind, label and data, in order. */
export function diffRuns(a: RunRecord, b: RunRecord): Change[] {
  const left = flatten(comparable(a));
  const right = flatten(comparable(b));
  const paths = [...new Set([...left.keys(), ...right.keys()])];
  return paths
    .filter((path) => left.get(path) !== right.get(path))
    .map((path) => ({ path, a: left.get(path), b: right.get(path) }));
}

/** Changes of one part of the runs: the run itself, or one item (by its place), what it is in each run. */
export interface ChangeGroup {
  title: string;
  changes: Change[];
}

/** The changes grouped by the item they are in, in order, each path then told from inside its item. */
export function groupChanges(changes: Change[], a: RunRecord, b: RunRecord): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const change of changes) {
    const item = /^items\[(\d+)\]\.?(.*)$/.exec(change.path);
    const key = item ? `item ${item[1]}` : "run";
    const title = item ? itemTitle(Number(item[1]), a, b) : "The run";
    const group = groups.get(key) ?? { title, changes: [] };
    group.changes.push({ ...change, path: item ? item[2] || "(the item)" : change.path });
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** "Item 3: REQUEST core", or "Item 3: REQUEST core / OUTPUT" where the runs hold different items there. */
function itemTitle(index: number, a: RunRecord, b: RunRecord): string {
  const name = (record: RunRecord) => {
    const item = record.items[index];
    return item ? [item.kind, item.label].filter(Boolean).join(" ") : "none";
  };
  const [left, right] = [name(a), name(b)];
  return `Item ${index + 1}: ${left === right ? left : `${left} / ${right}`}`;
}

function comparable(record: RunRecord): unknown {
  return {
    integration: record.integration,
    status: record.status,
    labels: record.labels,
    items: record.items.map(({ seq: _seq, at: _at, duration_ms: _duration, ...rest }) => rest),
  };
}

/** Each leaf's path and its value as text: JSON, `[]` or `{}`. */
function flatten(value: unknown): Map<string, string> {
  const text = (leaf: unknown) =>
    leaf !== null && typeof leaf === "object" ? (Array.isArray(leaf) ? "[]" : "{}") : JSON.stringify(leaf);
  return new Map([...leaves(value)].map(([path, leaf]) => [path, text(leaf)]));
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  return size < 1024 * 1024 ? `${(size / 1024).toFixed(1)} KB` : `${(size / 1024 / 1024).toFixed(1)} MB`;
}
