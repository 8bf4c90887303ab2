/** What stands for a bigint's digits while JSON.stringify writes around it: no JSON text holds it. */
const mark = "\uE000bass-bigint\uE000";
const marked = new RegExp(`"${mark}(-?\\d+)${mark}"`, "g");

/** Thrown by `jsonText` once the text it writes is known to be longer than its limit. */
export class JsonTooLong extends Error {
  constructor(readonly maxBytes: number) {
    super(`longer than ${maxBytes} bytes as JSON`);
  }
}

/**
 * The JSON text of a value, a bigint written as its exact digits (a Python cell's int past 2^53 comes
 * over as one, and Python's json writes it so). JSON.stringify refuses bigints: only a value that holds
 * one takes the slower way, after it did. With `maxBytes`, the text stops being written, and JsonTooLong is
 * thrown, as soon as what it holds already takes more bytes (docs/architecture.md#cells-that-cannot-hang-serve-leak-memory-or-reach-the-host):
 * a value too large to send is never one text whole.
 */
export function jsonText(value: unknown, maxBytes = Number.POSITIVE_INFINITY): string {
  if (maxBytes !== Number.POSITIVE_INFINITY) return boundedText(value, maxBytes);
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return writeBigints(JSON.stringify(value, (_key, item) => markBigint(item)));
  }
}

/**
 * The text written with a replacer that counts, for each value, the fewest characters it can take (a
 * string's length, a number's digits, a member's name, a separator): a UTF-8 byte is at least a
 * character, so past `maxBytes` the text is surely too long.
 */
function boundedText(value: unknown, maxBytes: number): string {
  let least = 0;
  let bigints = false;
  const text = JSON.stringify(value, function (this: unknown, key: string, item: unknown) {
    least += 1 + leastOf(item) + (Array.isArray(this) ? 0 : key.length);
    if (least > maxBytes) throw new JsonTooLong(maxBytes);
    if (typeof item !== "bigint") return item;
    bigints = true;
    return markBigint(item);
  });
  return bigints ? writeBigints(text) : text;
}

/** The fewest characters a value's JSON takes beyond one, for a string and a number; others count as one. */
function leastOf(item: unknown): number {
  if (typeof item === "string") return item.length;
  if (typeof item !== "number") return 0;
  // An integer's digits, less one (a logarithm may round up); anything else ("0.5", "1e+21", "null") takes
  // three at least.
  if (!Number.isInteger(item) || Math.abs(item) >= 1e21) return 2;
  const digits = item === 0 ? 1 : Math.floor(Math.log10(Math.abs(item))) + 1;
  return Math.max(0, digits - 2) + (item < 0 ? 1 : 0);
}

function markBigint(item: unknown): unknown {
  return typeof item === "bigint" ? `${mark}${item}${mark}` : item;
}

function writeBigints(text: string): string {
  return text.replace(marked, "$1");
}
