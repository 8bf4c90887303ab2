/** `; known: "a", "b"`: the names a reference could have meant, quoted; nothing when there are none. */
export function listKnown(names: Iterable<unknown>, label = "known"): string {
  const all = [...names].filter((name) => typeof name === "string");
  return all.length ? `; ${label}: ${all.map((name) => JSON.stringify(name)).join(", ")}` : "";
}
