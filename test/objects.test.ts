import { describe, expect, it } from "vitest";
import { isObject, isPlainObject } from "../src/objects.js";

describe("isObject and isPlainObject", () => {
  class Point {
    x = 1;
  }
  it.each<[string, unknown, boolean, boolean]>([
    ["a literal", { a: 1 }, true, true],
    ["parsed JSON", JSON.parse('{"a":1}'), true, true],
    ["a null-prototype object", Object.create(null), true, true],
    ["a class instance", new Point(), true, false],
    ["a Date", new Date(0), true, false],
    ["a list", [1], false, false],
    ["null", null, false, false],
    ["a string", "{}", false, false],
  ])("%s: object %s, plain %s", (_, value, object, plain) => {
    expect(isObject(value)).toBe(object);
    expect(isPlainObject(value)).toBe(plain);
  });
});
