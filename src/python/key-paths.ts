/**
 * The key paths Python cells read, `name.key.key…` (compiled by _KeyPaths in cells.py): each read in one
 * call, where reading it a step at a time makes a proxy of every object on the way.
 */
export interface KeyPaths {
  /** The index of a path given as its names joined by dots; the same path has the same index. */
  register(path: string): number;
  /**
   * The value at path `index`, its root read with `readName`: null where a key is missing, undefined
   * where the path leaves plain objects before its end (the cell then reads it a step at a time).
   */
  read(index: number, readName: (name: string) => unknown): unknown;
  /**
   * Sets the last key of path `index` to `value` where the keys before it run through plain objects;
   * false where they do not (the cell then sets it a step at a time).
   */
  write(index: number, value: unknown, readName: (name: string) => unknown): boolean;
}

export function createKeyPaths(): KeyPaths {
  const paths: string[][] = [];
  const indexes = new Map<string, number>();
  return {
    register(path) {
      let index = indexes.get(path);
      if (index === undefined) {
        index = paths.push(path.split(".")) - 1;
        indexes.set(path, index);
      }
      return index;
    },
    read(index, readName) {
      const [root, ...keys] = paths[index] as [string, ...string[]];
      let value = readName(root);
      for (const key of keys) {
        if (!isPlainObject(value)) return undefined;
        value = Object.hasOwn(value, key) ? value[key] : undefined;
        // A missing key reads as a cell's missing value, and so does every key past it.
        if (value === undefined || value === null) return null;
      }
      return value;
    },
    write(index, value, readName) {
      const [root, ...keys] = paths[index] as [string, ...string[]];
      const last = keys.pop() as string;
      let target = readName(root);
      for (const key of keys) {
        if (!isPlainObject(target) || !Object.hasOwn(target, key)) return false;
        target = target[key];
      }
      if (!isPlainObject(target)) return false;
      target[last] = value;
      return true;
    },
  };
}

/** An object of JSON's kind, of any realm: a Flex reads its keys, where a list or a buffer is read otherwise. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}
