import { setOwn } from "../objects.js";
/** A path step once its bracket expression, if any, has been evaluated. */
export type ResolvedSegment = { kind: "key"; name: string } | { kind: "index"; index: number };

/** A path step of a mask's `field`, where `[*]` matches every element. */
export type MatchSegment = ResolvedSegment | { kind: "wildcard" };

/** One place a path reaches: `parent[key]` holds `value`. */
export interface PathMatch {
  parent: object;
  key: string | number;
  value: unknown;
}

type Container = Record<string | number, unknown>;

/**
 * Writes `value` at the path (docs/reference.md#service_requestsfield_mappings), creating what is missing on the way: an array where the next
 * step is an index, else an object. A primitive or null in the way is replaced; inherited properties
 * are never walked into.
 */
export function writePath(
  root: Record<string, unknown>,
  segments: readonly ResolvedSegment[],
  value: unknown,
): void {
  let container: object = root;
  const last = segments.length - 1;
  for (let at = 0; at < last; at++) {
    const key = keyOf(segments[at] as ResolvedSegment);
    let child = Object.hasOwn(container, key) ? (container as Container)[key] : undefined;
    if (typeof child !== "object" || child === null) {
      child = segments[at + 1]?.kind === "index" ? [] : {};
      setOwn(container, key, child);
    }
    container = child as object;
  }
  const target = segments[last];
  if (target) setOwn(container, keyOf(target), value);
}

/** Every existing place the path reaches (docs/reference.md#masks), `[*]` matching each element or own value. */
export function findMatches(root: unknown, segments: readonly MatchSegment[]): PathMatch[] {
  let values = [root];
  let matches: PathMatch[] = [];
  for (const segment of segments) {
    matches = [];
    for (const value of values) collectMatches(value, segment, matches);
    values = matches.map((match) => match.value);
  }
  return matches;
}

function collectMatches(parent: unknown, segment: MatchSegment, into: PathMatch[]): void {
  if (typeof parent !== "object" || parent === null) return;
  if (segment.kind !== "wildcard") {
    const key = keyOf(segment);
    if (Object.hasOwn(parent, key)) into.push({ parent, key, value: (parent as Container)[key] });
  } else if (Array.isArray(parent)) {
    for (let key = 0; key < parent.length; key++) {
      if (Object.hasOwn(parent, key)) into.push({ parent, key, value: parent[key] });
    }
  } else {
    for (const key of Object.keys(parent)) into.push({ parent, key, value: (parent as Container)[key] });
  }
}

function keyOf(segment: ResolvedSegment): string | number {
  return segment.kind === "key" ? segment.name : segment.index;
}
