import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatMoney, parseAmount, parseMoney } from "../../src/mockcore/money.js";

describe("parseAmount", () => {
  it.each([
    ["150.00", 15000n],
    ["150", 15000n],
    ["84.9", 8490n],
    ["0.01", 1n],
    ["007.50", 750n],
    ["999999999999999.99", 99999999999999999n],
  ])("reads %j as %i minor units", (text, minor) => {
    expect(parseAmount(text)).toBe(minor);
  });

  it.each([
    ["zero", "0.00"],
    ["a negative amount", "-1.00"],
    ["a plus sign", "+1.00"],
    ["three decimals", "1.234"],
    ["a trailing point", "1."],
    ["a leading point", ".50"],
    ["an exponent", "1e3"],
    ["white space", " 1.00"],
    ["a comma", "1,00"],
    ["an empty string", ""],
    ["16 integer digits", "1000000000000000"],
    ["a JSON number", 150],
    ["null", null],
  ])("refuses %s", (_, text) => {
    expect(parseAmount(text)).toBeUndefined();
  });
});

describe("parseMoney", () => {
  it("reads zero, which a balance may be", () => {
    expect(parseMoney("0.00")).toBe(0n);
  });
});

describe("formatMoney", () => {
  it.each([
    [15000n, "150.00"],
    [5n, "0.05"],
    [0n, "0.00"],
    [-8490n, "-84.90"],
    [123456789012345678901n, "1234567890123456789.01"],
  ])("writes %i as %j", (minor, text) => {
    expect(formatMoney(minor)).toBe(text);
  });

  it("is read back exactly, for any amount", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), (minor) => {
        expect(parseMoney(formatMoney(minor))).toBe(minor);
      }),
    );
  });
});
