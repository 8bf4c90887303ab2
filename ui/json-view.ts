/** JSON as the page shows it: indented, its keys, strings, numbers and literals told apart by colour. */
import { html } from "htm/preact";

/** A JSON text's tokens: a key (a string before a colon), a string, a number, true, false or null. */
const token = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;

/** The text of `value` as JSON, split into plain runs and coloured tokens. */
export function highlighted(value: unknown): (string | { kind: string; text: string })[] {
  const text = JSON.stringify(value, null, 2) ?? "undefined";
  const parts: (string | { kind: string; text: string })[] = [];
  let last = 0;
  for (const match of text.matchAll(token)) {
    const at = match.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    const [whole, string, colon, number] = match;
    if (string !== undefined) {
      parts.push({ kind: colon ? "key" : "string", text: string });
      if (colon) parts.push(colon);
    } else parts.push({ kind: number !== undefined ? "number" : "literal", text: whole });
    last = at + whole.length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/**
 * A block of JSON sized to its content, up to most of the window; it can be reached with the keyboard
 * (a region that scrolls must be), and `label` names it for a screen reader.
 */
export function JsonView({ value, label }: { value: unknown; label: string }) {
  return html`<pre class="json" tabindex="0" role="region" aria-label=${label}>${highlighted(value).map(
    (part) => (typeof part === "string" ? part : html`<span class=${`j-${part.kind}`}>${part.text}</span>`),
  )}</pre>`;
}
