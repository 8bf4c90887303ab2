// XML 1.0 allows tab, LF, CR and these ranges only; any other character (a C0 control, a lone surrogate,
// U+FFFE) makes the whole document unreadable and no character reference may stand for it, so it is dropped.
const illegal = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" } as const;
// A parser turns a literal tab, LF or CR in an attribute value into a space (attribute-value
// normalization); written as character references they stay what they were.
const whitespace = { "\t": "&#9;", "\n": "&#10;", "\r": "&#13;" } as const;

/** Makes text safe as XML 1.0 element content. */
export function escapeXml(text: string): string {
  return text.replace(illegal, "").replace(/[&<>"']/g, (char) => entities[char as keyof typeof entities]);
}

/** Makes text safe as an XML 1.0 attribute value, keeping its tabs and line breaks. */
export function escapeXmlAttribute(text: string): string {
  return escapeXml(text).replace(/[\t\n\r]/g, (char) => whitespace[char as keyof typeof whitespace]);
}
