import { Document, isNode, Scalar, visit } from "yaml";

/** A comment written above the item at `at` (a path of keys and indexes into the document's value). */
export interface YamlNote {
  at: (string | number)[];
  text: string;
}

/** Something an import made, with the comments to write above it and inside it (paths relative to it). */
export interface Converted<T> {
  value: T;
  notes: YamlNote[];
}

/** Items as the list under `key`, with their notes at their index: paths relative to the object that holds `key`. */
export function asList<T>(key: string, items: readonly Converted<T>[]): Converted<T[]> {
  return {
    value: items.map((item) => item.value),
    notes: items.flatMap((item, index) =>
      item.notes.map((note) => ({ ...note, at: [key, index, ...note.at] })),
    ),
  };
}

/** As `asList`, in the order the items' `sequence` says (none counts as 0, ties keep their order). */
export function inSequence<T extends { sequence?: number }>(
  key: string,
  items: Converted<T>[],
): Converted<T[]> {
  return asList(
    key,
    items.toSorted((a, b) => (a.value.sequence ?? 0) - (b.value.sequence ?? 0)),
  );
}

/** The note above an item itself, when it has one. */
export function noteAbove(text: string | undefined): YamlNote[] {
  return text === undefined ? [] : [{ at: [], text }];
}

/** A file an import writes: where (relative to the project, with `/`), its value, and comments. */
export interface ImportedYaml<T> {
  path: string;
  value: T;
  notes: YamlNote[];
  /** The lines of the comment that opens the file, without `#`. */
  header: string[];
}

/**
 * YAML text of an imported file: every multi-line string as a literal block (`|`), so that a cell's lines
 * are the file's lines and its findings point inside it, and no line folded.
 */
export function stringifyImported(file: ImportedYaml<unknown>): string {
  const document = new Document(file.value);
  visit(document, {
    Scalar(_, node) {
      if (typeof node.value === "string" && node.value.includes("\n")) node.type = Scalar.BLOCK_LITERAL;
    },
  });
  for (const note of file.notes) {
    const node = document.getIn(note.at, true);
    if (isNode(node)) node.commentBefore = commentLines(note.text);
  }
  const header = file.header.map((line) => (line === "" ? "#" : `# ${line}`)).join("\n");
  return `${header}\n\n${document.toString({ lineWidth: 0 })}`;
}

/** A comment's text as the lines after `#`: one space before each, none on a blank line. */
function commentLines(text: string): string {
  return text
    .split(/\r\n?|\n/)
    .map((line) => (line.trim() === "" ? "" : ` ${line.trimEnd()}`))
    .join("\n");
}
