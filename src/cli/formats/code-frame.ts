export interface CodeFrameStyle {
  gutter: (text: string) => string;
  /** Paints the `>` marker and the caret. */
  mark: (text: string) => string;
}

/** The line at a 1-based position with one line of context each side and a caret under the column; no lines when the source has no such line. */
export function createCodeFrame(
  source: string,
  line: number,
  column: number,
  style: CodeFrameStyle,
): string[] {
  const lines = source.split(/\r\n|\r|\n/);
  const target = lines[line - 1];
  if (target === undefined) return [];
  const first = Math.max(1, line - 1);
  const last = Math.min(lines.length, line + 1);
  const width = String(last).length;
  const frame: string[] = [];
  for (let number = first; number <= last; number++) {
    const text = lines[number - 1] ?? "";
    const marker = number === line ? style.mark(">") : " ";
    const gutter = style.gutter(`${String(number).padStart(width)} |`);
    frame.push(`    ${marker} ${gutter}${text === "" ? "" : ` ${text}`}`);
  }
  // Keeping the tabs of the line itself lines the caret up however wide the terminal draws a tab; a
  // column past the end of the line points just after its last character.
  const before = target.slice(0, Math.max(0, column - 1)).replace(/[^\t]/g, " ");
  const caretLine = `      ${style.gutter(`${" ".repeat(width)} |`)} ${before}${style.mark("^")}`;
  frame.splice(line - first + 1, 0, caretLine);
  return frame;
}
