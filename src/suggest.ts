/** The known name nearest to a typo, when it is near enough to be a likely meaning. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** At most this many known names follow an unknown one. */
const listedNames = 10;

/**
 * What follows an unknown name in a message: `; did you mean "customers.create"?` when one is near, and
 * the known names (the first ten, sorted) after `label`, as `git` and `npm` answer a typo.
 */
export function suggestion(word: string, known: readonly string[], label = "known"): string {
  const guess = closest(word, known);
  return `${guess ? `; did you mean ${JSON.stringify(guess)}?` : ""}${knownNames(known, label)}`;
}

/** `; label: "a", "b"` with the known names, the first ten sorted; nothing when there are none. */
export function knownNames(known: readonly string[], label: string): string {
  const sorted = [...new Set(known)].sort();
  const listed = sorted.slice(0, listedNames).map((name) => JSON.stringify(name));
  const more = sorted.length > listedNames ? `, and ${sorted.length - listedNames} more` : "";
  return listed.length ? `; ${label}: ${listed.join(", ")}${more}` : "";
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
