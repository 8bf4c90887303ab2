import type { Item, RunRecord } from "../engine/types.js";

/** `history.max_item_bytes` when the project file sets none. */
export const defaultMaxItemBytes = 256 * 1024;

/** How a cut payload ends: readers (a re-run among them) know a cut text by it. */
const cutNote = /…\[cut by bass: \d+ bytes of JSON, history\.max_item_bytes keeps \d+\]$/;

/** Whether a text of a record is a payload cut to `history.max_item_bytes`. */
export function isCutText(text: string): boolean {
  return cutNote.test(text);
}

/**
 * The record with every payload longer than `maxBytes` as JSON (a request, a response, the input, the
 * output, a debug or log value) replaced by a text: its first `maxBytes` bytes of JSON and a note saying
 * how long it was. `line` is the record's JSON: a record no longer than the limit has nothing to cut.
 */
export function cutPayloads(record: RunRecord, line: string, maxBytes: number): RunRecord {
  if (line.length <= maxBytes / 3 || Buffer.byteLength(line) <= maxBytes) return record;
  const cut = (value: unknown) => cutValue(value, maxBytes);
  return { ...record, items: record.items.map((item) => cutItem(item, cut)) };
}

function cutItem(item: Item, cut: (value: unknown) => unknown): Item {
  switch (item.kind) {
    case "INPUT":
    case "OUTPUT":
      return { ...item, data: { ...item.data, payload: cut(item.data.payload) } } as Item;
    case "REQUEST":
      return {
        ...item,
        request: { ...item.request, payload: cut(item.request.payload) },
        response: item.response && { ...item.response, payload: cut(item.response.payload) },
      };
    case "DEBUG":
    case "LOG":
      return { ...item, data: cut(item.data) };
    default:
      return item;
  }
}

function cutValue(value: unknown, maxBytes: number): unknown {
  const json = JSON.stringify(value);
  if (json === undefined || json.length <= maxBytes / 3) return value;
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return value;
  // Whole characters only: what fits of the text in maxBytes bytes of UTF-8.
  const { read } = new TextEncoder().encodeInto(json.slice(0, maxBytes), new Uint8Array(maxBytes));
  return `${json.slice(0, read)}…[cut by bass: ${bytes} bytes of JSON, history.max_item_bytes keeps ${maxBytes}]`;
}
