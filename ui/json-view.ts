/** JSON as the page shows it: indented, its keys, strings, numbers and literals told apart by colour. */
import { html } from "htm/preact";

/** A JSON text's tokens: a key (a string before a colon), a string, a number, true, false or null. */
const token = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;

type Part = string | { kind: string; text: string };

/** The text of `value` as JSON, split into plain runs and coloured tokens. */
export function highlighted(value: unknown): Part[] {
  const text = JSON.stringify(value, null, 2) ?? "undefined";
  const parts: Part[] = [];
  let last = 0;
  for (const match of text.matchAll(token)) {
    const at = match.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    parts.push(...tokenParts(match));
    last = at + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/** One token as its coloured part: a key with the colon after it, a string, a number or a literal. */
function tokenParts([whole, string, colon, number]: RegExpMatchArray): Part[] {
  if (string === undefined) return [{ kind: number !== undefined ? "number" : "literal", text: whole }];
  return colon ? [{ kind: "key", text: string }, colon] : [{ kind: "string", text: string }];
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
