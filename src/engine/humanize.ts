import type { Definition } from "../definition/types.js";

/** A list index in a field path (`[0]`, `[fidx]`): humanize matches a path with or without its indexes. */
const listIndex = /\[(?:\d+|[A-Za-z_$][\w$]*)\]/g;

/**
 * The readable names of a definition's parts, for `humanize`: each field mapping's `field`, each
 * validation rule's `field` code and each service request's `formula_variable`, to its
 * `message_substitution_name`; a path also under its form without list indexes.
 */
export function humanNames(definition: Definition): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  const add = (name: string, readable: string | null | undefined) => {
    if (!readable) return;
    names.set(name, readable);
    const bare = name.replace(listIndex, "");
    if (!names.has(bare)) names.set(bare, readable);
  };
  for (const request of definition.service_requests ?? []) {
    add(request.formula_variable, request.message_substitution_name);
    for (const mapping of request.field_mappings ?? []) add(mapping.field, mapping.message_substitution_name);
  }
  for (const rule of definition.validation_rules ?? [])
    if (rule.field) add(rule.field.trim(), rule.message_substitution_name);
  return names;
}

/** What `humanize(name)` gives: the readable name of the part `name` names, else `name` itself. */
export function humanize(names: ReadonlyMap<string, string>, name: string): string {
  return names.get(name) ?? names.get(name.replace(listIndex, "")) ?? name;
}
