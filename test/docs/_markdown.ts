/** A fenced block of a Markdown file (also inside `>` quotes), or a paragraph of its prose. */
export type MarkdownBlock =
  | { kind: "fence"; line: number; lang: string; lines: string[] }
  | { kind: "prose"; line: number; text: string };

/** The fenced blocks and prose paragraphs of a Markdown file, in order, each with its first line. */
export function markdownBlocks(markdown: string): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  let fence: Extract<MarkdownBlock, { kind: "fence" }> | undefined;
  let prose: Extract<MarkdownBlock, { kind: "prose" }> | undefined;
  markdown.split("\n").forEach((raw, index) => {
    const text = raw.replace(/^> ?/, "");
    const opening = /^```(\w*)/.exec(text);
    if (fence) {
      if (opening) fence = undefined;
      else fence.lines.push(text);
    } else if (opening) {
      prose = undefined;
      fence = { kind: "fence", line: index + 1, lang: opening[1] ?? "", lines: [] };
      blocks.push(fence);
    } else if (text.trim() === "") {
      prose = undefined;
    } else if (prose) {
      prose.text += `\n${text}`;
    } else {
      prose = { kind: "prose", line: index + 1, text };
      blocks.push(prose);
    }
  });
  return blocks;
}

/** One `$ command` of a console block, the output shown under it, and its line in the file. */
export interface ConsoleExample {
  line: number;
  command: string;
  output: string;
}

/**
 * The examples of one console block: each `$ ` line, joined with its `\` continuations, and the lines
 * under it up to the next `$ ` or the block's end.
 */
export function examplesOf(block: { line: number; lines: readonly string[] }): ConsoleExample[] {
  const examples: ConsoleExample[] = [];
  let current: ConsoleExample | undefined;
  let continued = false;
  block.lines.forEach((text, index) => {
    if (continued && current) {
      current.command += `\n${text}`;
      continued = text.endsWith("\\");
    } else if (text.startsWith("$ ")) {
      current = { line: block.line + 1 + index, command: text.slice(2), output: "" };
      examples.push(current);
      continued = text.endsWith("\\");
    } else if (current) current.output += `${text}\n`;
  });
  return examples;
}
