import type { Position, ValuePath } from "./value-path.js";

/** A YAML file parsed with its source positions, so every value can be traced to its line and column. */
export interface YamlSource {
  file: string;
  text: string;
  value: unknown;
  locate(path: ValuePath, target?: "key" | "value"): Position;
  /**
   * Maps a 1-based line and 0-based column inside the string at `path` to its place in the file; inside a
   * string whose source differs from its value (escapes, folded lines) it gives the start of the value.
   */
  locateInString(path: ValuePath, line: number, column: number): Position;
  /** The value and the places of its nodes as plain data, which `restoreYamlSource` answers from without the parser. */
  snapshot(): SourceSnapshot;
}

/** Where a string's characters are in the file, when each is where it is written. */
export type StringPlace =
  /** A block scalar whose lines are the file's lines from `firstLine` on, each indented by `indent`. */
  | { block: { firstLine: number; indent: number; lines: number } }
  /** A one-line scalar whose value is its source; the place of its first character. */
  | { inline: Position };

/** The places of one node of a YAML file: its key (in a map), its value, and inside it when a string. */
export interface NodePlace {
  key?: Position;
  value: Position;
  string?: StringPlace;
}

/** A parsed YAML file as plain data: its value and the place of every node, by `placeKey` of its path. */
export interface SourceSnapshot {
  value: unknown;
  places: Record<string, NodePlace>;
}

/** The key of a node's path in `SourceSnapshot.places`. */
export function placeKey(path: ValuePath): string {
  return path.join("\u0000");
}

/** A line and column inside a string, as a place in the file; undefined where the string is not written verbatim. */
export function placeInString(
  place: StringPlace | undefined,
  line: number,
  column: number,
): Position | undefined {
  if (place && "block" in place) {
    const { firstLine, indent, lines } = place.block;
    return line <= lines ? { line: firstLine + line - 1, column: indent + column + 1 } : undefined;
  }
  if (place && line === 1) return { line: place.inline.line, column: place.inline.column + column };
  return undefined;
}

/** A YamlSource answered from a snapshot, as the parsed file would answer; no YAML parser is loaded. */
export function restoreYamlSource(file: string, text: string, snapshot: SourceSnapshot): YamlSource {
  const { places } = snapshot;
  /** The node at `path`, or the last one on the way there that exists, as the parsed file walks it. */
  const find = (path: ValuePath): { place: NodePlace; complete: boolean } => {
    for (let length = path.length; length >= 0; length--) {
      const place = places[placeKey(path.slice(0, length))];
      if (place) return { place, complete: length === path.length };
    }
    return { place: { value: { line: 1, column: 1 } }, complete: false };
  };
  const locate = (path: ValuePath, target: "key" | "value" = "key"): Position => {
    const { place, complete } = find(path);
    return (target === "key" && complete && place.key) || place.value;
  };
  return {
    file,
    text,
    value: snapshot.value,
    locate,
    locateInString(path, line, column) {
      const { place, complete } = find(path);
      return (complete && placeInString(place.string, line, column)) || locate(path, "value");
    },
    snapshot: () => snapshot,
  };
}
