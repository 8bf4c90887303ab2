/** What stands for a bigint's digits while JSON.stringify writes around it: no JSON text holds it. */
const mark = "\uE000bass-bigint\uE000";
const marked = new RegExp(`"${mark}(-?\\d+)${mark}"`, "g");

/**
 * The JSON text of a value, a bigint written as its exact digits (a Python cell's int past 2^53 comes
 * over as one, and Python's json writes it so). JSON.stringify refuses bigints: only a value that holds
 * one takes the slower way, after it did.
 */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const text = JSON.stringify(value, (_key, item) =>
      typeof item === "bigint" ? `${mark}${item}${mark}` : item,
    );
    return text.replace(marked, "$1");
  }
}
