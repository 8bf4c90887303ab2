import { stripVTControlCharacters } from "node:util";
import type { ChalkInstance } from "chalk";
import type { Item, RunRecord, RunStatus } from "../engine/types.js";

const previewLength = 80;

/**
 * One run as a tree for a terminal: a header line, then one line per history item, each cut to the
 * terminal's `columns` (off a terminal, whole); why a run failed follows its item whole, wrapped under it
 * to the terminal's width (100 off one), since the cause is what a reader came for.
 */
export function renderRecord(record: RunRecord, paint: ChalkInstance, columns?: number): string {
  const width = columns ?? 100;
  const toWidth = (line: string) => (columns === undefined ? line : cutVisible(line, columns));
  const header = [
    paint.bold(oneLine(record.id)),
    oneLine(record.integration),
    paintStatus(record.status, paint),
    formatDuration(record.duration_ms),
    oneLine(record.trigger),
    record.async ? "async" : "",
    record.labels.length ? paint.cyan(`[${oneLine(record.labels.join(", "))}]`) : "",
  ];
  const seqWidth = Math.max(0, ...record.items.map((item) => String(item.seq).length));
  const kindWidth = Math.max(0, ...record.items.map((item) => item.kind.length));
  const lines = record.items.map((item, index) => {
    const glyph = index === record.items.length - 1 ? "└─" : "├─";
    const kind = item.kind.padEnd(kindWidth);
    const failed = item.kind === "VALIDATION_FAILURE" || item.kind === "FAILURE";
    const line = toWidth(
      joinParts([
        paint.dim(glyph),
        paint.dim(String(item.seq).padStart(seqWidth)),
        failed ? paint.red(kind) : paint.bold(kind),
        ...describeItem(item, paint),
      ]),
    );
    const why = failureText(item);
    if (why === undefined) return line;
    const indent = `${index === record.items.length - 1 ? " " : "│"}${" ".repeat(seqWidth + 2)}`;
    const wrapped = wrap(why, Math.max(20, width - indent.length - 1));
    return [line, ...wrapped.map((text) => `${paint.dim(indent)} ${paint.red(text)}`)].join("\n");
  });
  return `${[toWidth(joinParts(header)), ...lines, ...filesLine(record, paint).map(toWidth)].join("\n")}\n`;
}

/** The run's files, under its tree: kept in `.bass/files/<run id>/`, or said not to be. */
function filesLine(record: RunRecord, paint: ChalkInstance): string[] {
  if (!record.files?.length) return [];
  const names = record.files.map(
    (file) => `${oneLine(file.name)} (${file.size} B${file.kept === false ? ", not kept" : ""})`,
  );
  return [`${paint.dim("files")} ${names.join(", ")}`];
}

// The escape sequences chalk writes (ESC, then `[…m`): they take no room on screen.
const escapeCode = 27;
const styleRest = /\[[0-9;]*m/y;

/** The length of a styling sequence at `at`, or 0 for a character shown on screen. */
function stylingAt(line: string, at: number): number {
  if (line.charCodeAt(at) !== escapeCode) return 0;
  styleRest.lastIndex = at + 1;
  const rest = styleRest.exec(line);
  return rest ? rest[0].length + 1 : 0;
}

/** A painted line cut to `columns` characters on screen, with `…` where it was cut and its styling closed. */
function cutVisible(line: string, columns: number): string {
  if ([...stripVTControlCharacters(line)].length <= columns) return line;
  let shown = 0;
  let at = 0;
  let out = "";
  while (at < line.length && shown < columns - 1) {
    const styled = stylingAt(line, at);
    const length = styled || String.fromCodePoint(line.codePointAt(at) ?? 0).length;
    out += line.slice(at, at + length);
    if (!styled) shown++;
    at += length;
  }
  return `${out}…${out.length > shown ? "\u001b[0m" : ""}`;
}

/**
 * Every item's data (`--verbose`), masked as the record is: a heading per item, then its fields as YAML,
 * indented. The YAML writer loads only here.
 */
export async function renderItemData(record: RunRecord, paint: ChalkInstance): Promise<string> {
  const { stringify } = await import("../yaml-text.js");
  const blocks = record.items.map(({ seq, kind, at, ...data }) => {
    const label = "label" in data && typeof data.label === "string" ? ` ${oneLine(data.label)}` : "";
    const yaml = stringify(data, { lineWidth: 0 }).trimEnd();
    const body = yaml === "{}" ? "" : `\n${yaml.replace(/^/gm, "    ")}`;
    return `${paint.bold(`${seq} ${kind}${label}`)} ${paint.dim(at)}${body}`;
  });
  return `\n${blocks.join("\n")}\n`;
}

/** The runs of `bass history`, one aligned row each, newest first as given. */
export function renderRunList(records: readonly RunRecord[], paint: ChalkInstance): string {
  if (records.length === 0) return paint.dim("(no runs)");
  const rows = records.map((record) => [
    oneLine(record.id),
    oneLine(record.integration),
    record.status,
    oneLine(record.started_at),
    formatDuration(record.duration_ms),
    record.trigger,
    oneLine(record.labels.join(", ")),
  ]);
  const heading = ["ID", "INTEGRATION", "STATUS", "STARTED", "DURATION", "TRIGGER", "LABELS"];
  const widths = heading.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  // Pad before painting: escape codes have no width on screen but do have length.
  const align = (cells: string[], style: (cell: string, column: number) => string) =>
    cells
      .map((cell, column) => style(cell, column) + " ".repeat((widths[column] ?? 0) - cell.length))
      .join("  ")
      .trimEnd();
  return [
    align(heading, (cell) => paint.dim(cell)),
    ...rows.map((row) => align(row, (cell, column) => (column === 2 ? paintStatus(cell, paint) : cell))),
  ].join("\n");
}

/** An item's label, state, duration and payload preview, each present only where the kind has it. */
function describeItem(item: Item, paint: ChalkInstance): string[] {
  switch (item.kind) {
    case "INPUT":
      return [`${oneLine(item.data.method)} ${oneLine(item.data.fullpath)}`, preview(item.data.payload)];
    case "REQUEST":
      return describeRequest(item, paint);
    case "VALIDATION_FAILURE":
      return [paint.cyan(oneLine(item.label))];
    case "DEBUG":
      return [item.label === undefined ? "" : paint.cyan(oneLine(item.label)), preview(item.data)];
    case "LOG": {
      const level = { info: paint.blue, warn: paint.yellow, error: paint.red }[item.level](item.level);
      return [`${level}: ${preview(item.data)}`];
    }
    case "FAILURE": {
      const { code, cell, file, line } = item.error;
      const place = line === undefined ? undefined : file ? `${file}:${line}` : `line ${line}`;
      const where = [cell, place].filter(Boolean).join(", ");
      return [paint.red(oneLine(code)), where ? paint.dim(oneLine(where)) : ""];
    }
    case "CALLINT":
      return [
        paint.cyan(oneLine(item.integration)),
        paint[item.status === "failure" ? "red" : "green"](item.status),
        formatDuration(item.duration_ms),
        paint.dim(`run ${item.run_id}`),
      ];
    case "OUTPUT": {
      const status = String(item.data.status);
      return [item.data.status < 400 ? paint.green(status) : paint.red(status), preview(item.data.payload)];
    }
    default:
      // A kind a newer bass wrote: its seq and kind still show.
      return [];
  }
}

/** A service request's label, whether it succeeded, its duration, what it sent and got, and why it failed. */
function describeRequest(item: Extract<Item, { kind: "REQUEST" }>, paint: ChalkInstance): string[] {
  const ok = item.response?.success === true;
  const state = `${ok ? "✓" : "✗"} ${item.response ? (item.response.status ?? "") : "no response"}`;
  return [
    paint.cyan(oneLine(item.label) + (item.sridx === null ? "" : `[${item.sridx}]`)),
    ok ? paint.green(state.trimEnd()) : paint.red(state.trimEnd()),
    formatDuration(item.duration_ms),
    `→ ${preview(item.request.payload)}`,
    item.response ? `← ${preview(item.response.payload)}` : "",
  ];
}

function paintStatus(status: RunStatus | string, paint: ChalkInstance): string {
  if (status === "success") return paint.green(status);
  if (status === "failure") return paint.red(status);
  return paint.yellow(oneLine(status));
}

function formatDuration(ms: number | null): string {
  if (ms === null) return "-";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A value on one line: text as it is, anything else as compact JSON, cut to about 80 characters. */
function preview(value: unknown): string {
  if (value === undefined) return "";
  return cut(oneLine(typeof value === "string" ? value : (JSON.stringify(value) ?? String(value))));
}

/** Text safe for one terminal line: control characters (newlines, escape sequences from a payload) become spaces. */
function oneLine(text: string): string {
  return text.replace(/\p{Cc}+/gu, " ");
}

function cut(text: string): string {
  const chars = [...text];
  return chars.length > previewLength ? `${chars.slice(0, previewLength - 1).join("")}…` : text;
}

/**
 * What a failing item says, whole: a validation's message, a failure's error message, a failed call's
 * adapter messages (a missing mock answer, a time-out, an HTTP status).
 */
function failureText(item: Item): string | undefined {
  if (item.kind === "VALIDATION_FAILURE") return oneLine(item.message);
  if (item.kind === "FAILURE") return oneLine(item.error.message);
  if (item.kind === "REQUEST" && item.response && !item.response.success && item.response.messages.length)
    return oneLine(item.response.messages.join("; "));
  return undefined;
}

/** Text in lines of at most `width` characters, broken at spaces where it can be. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let rest = text.trim();
  while ([...rest].length > width) {
    const points = [...rest];
    const head = points.slice(0, width + 1).join("");
    const space = head.lastIndexOf(" ");
    // Indexes into the text count UTF-16 units: a break without a space falls after `width` characters.
    const at = space > width / 3 ? space : points.slice(0, width).join("").length;
    lines.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest) lines.push(rest);
  return lines;
}

function joinParts(parts: readonly string[]): string {
  return parts.filter((part) => part !== "").join(" ");
}
