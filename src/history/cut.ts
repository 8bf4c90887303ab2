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
 * The record's JSON with every payload longer than `maxBytes` as JSON (a request, a response, the input,
 * the output, a debug or log value) replaced by a text: its first `maxBytes` bytes of JSON and a note
 * saying how long it was. It is written item by item, so that a record of many long items is never one
 * text whole (docs/architecture.md#cells-that-cannot-hang-serve-leak-memory-or-reach-the-host): an item
 * no longer than the limit has nothing to cut.
 */
export function cutRecordLine(record: RunRecord, maxBytes: number): string {
  const { items, ...rest } = record;
  const cut = (value: unknown) => cutValue(value, maxBytes);
  const texts = items.map((item) => {
    const text = JSON.stringify(item);
    return isWithin(text, maxBytes) ? text : JSON.stringify(cutItem(item, cut));
  });
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)}${head === "{}" ? "" : ","}"items":[${texts.join(",")}]}`;
}

/** A UTF-8 byte is at least a character: only a long text is counted in bytes. */
function isWithin(text: string, maxBytes: number): boolean {
  return text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes;
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
  if (json === undefined || isWithin(json, maxBytes)) return value;
  const bytes = Buffer.byteLength(json);
  // Whole characters only: what fits of the text in maxBytes bytes of UTF-8.
  const { read } = new TextEncoder().encodeInto(json.slice(0, maxBytes), new Uint8Array(maxBytes));
  return `${json.slice(0, read)}…[cut by bass: ${bytes} bytes of JSON, history.max_item_bytes keeps ${maxBytes}]`;
}
