/** Whether a value is an object that is not null or a list: a YAML mapping, a parsed JSON object, any instance. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether a value is an object of plain data: made by a literal or JSON.parse, not a list, a Date or another
 * class's instance. It holds across realms: a cell's objects are made in a realm of its own.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}

/** Sets an own property; `__proto__` is defined as a plain own key so input data never swaps a prototype. */
export function setOwn(target: object, key: string | number, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    (target as Record<string | number, unknown>)[key] = value;
  }
}
