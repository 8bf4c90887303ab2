// XML 1.0 allows tab, LF, CR and these ranges only; any other character (a C0 control, a lone surrogate,
// U+FFFE) makes the whole document unreadable and no character reference may stand for it, so it is dropped.
const illegal = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" } as const;

/** Makes text safe as XML 1.0 element content or attribute value. */
export function escapeXml(text: string): string {
  return text.replace(illegal, "").replace(/[&<>"']/g, (char) => entities[char as keyof typeof entities]);
}
