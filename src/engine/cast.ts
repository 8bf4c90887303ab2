import type { ValueType } from "../definition/types.js";
import { isPlainObject } from "../objects.js";

export type CastResult = { ok: true; value: unknown } | { ok: false };

const integerText = /^\s*[+-]?\d+\s*$/;
const decimalText = /^([+-]?)(?:(\d+)\.?(\d*)|\.(\d+))(?:[eE]([+-]?\d+))?$/;
/** Beyond this an exponent would spell out more zeros than any real amount has: "1e999999999". */
const maxExponent = 1000;
const failed: CastResult = { ok: false };

/**
 * Casts a field mapping's value to its `value_type` (docs/reference.md#service_requestsfield_mappings); `null` and `undefined` pass as they are.
 * - `string`: strings; finite numbers, bigints and booleans through `String()`.
 * - `integer`: safe integers; strings of optional sign and digits (white space around) that make a
 *   safe integer. Never truncates: 1.5, "1.5", true and "" fail.
 * - `number`: finite numbers; non-blank strings that `Number()` reads as a finite number.
 * - `decimal`: a canonical decimal string (see `toDecimalString`), never through a binary float.
 * - `boolean`: booleans; "true"/"false" in any case; 1/0 and "1"/"0".
 * - `object`: plain objects; a string that is the JSON text of one.
 * - `array`: arrays; a string that is the JSON text of one.
 * Anything else fails.
 */
export function castValue(value: unknown, type: ValueType): CastResult {
  if (value === null || value === undefined) return { ok: true, value };
  const cast = casts[type](value);
  return cast === undefined ? failed : { ok: true, value: cast };
}

/** Each cast gives `undefined` when the value cannot be cast (it never is one, as the caller passes those by). */
const casts: Record<ValueType, (value: unknown) => unknown> = {
  string: (value) => {
    if (typeof value === "string") return value;
    if (typeof value === "bigint" || typeof value === "boolean") return String(value);
    return typeof value === "number" && Number.isFinite(value) ? String(value) : undefined;
  },
  integer: (value) => {
    if (typeof value === "number") return Number.isSafeInteger(value) ? value : undefined;
    if (typeof value !== "string" || !integerText.test(value)) return undefined;
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : undefined;
  },
  number: (value) => {
    if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
    if (typeof value !== "string" || value.trim() === "") return undefined;
    const number = Number(value);
    return Number.isFinite(number) ? number : undefined;
  },
  decimal: toDecimalString,
  boolean: (value) => {
    if (typeof value === "boolean") return value;
    if (value === 1 || value === 0) return value === 1;
    if (typeof value !== "string") return undefined;
    const text = value.trim().toLowerCase();
    if (text === "true" || text === "1") return true;
    return text === "false" || text === "0" ? false : undefined;
  },
  object: (value) => {
    const object = typeof value === "string" ? parseJson(value) : value;
    return isPlainObject(object) ? object : undefined;
  },
  array: (value) => {
    const array = typeof value === "string" ? parseJson(value) : value;
    return Array.isArray(array) ? array : undefined;
  },
};

/**
 * The canonical decimal text of a number, bigint or decimal string ("-1.5e3", " 012.30 "), or `undefined`.
 * Pure string work, so no digit is lost to a binary float: a leading "+" goes, exponents are spelled
 * out, leading zeros go (one "0" stays), fractional digits stay as given ("12.30", "1." → "1",
 * ".5" → "0.5"), and zero has no sign ("-0.00" → "0.00"). A number goes through its shortest
 * round-trip text (`String(n)`): 0.1 + 0.2 → "0.30000000000000004", 1e21 → "1000000000000000000000".
 * Exponents beyond ±1000 are refused.
 */
export function toDecimalString(value: unknown): string | undefined {
  if (typeof value === "bigint") return String(value);
  if (typeof value === "number") return Number.isFinite(value) ? normalizeDecimal(String(value)) : undefined;
  return typeof value === "string" ? normalizeDecimal(value.trim()) : undefined;
}

function normalizeDecimal(text: string): string | undefined {
  const match = decimalText.exec(text);
  if (!match) return undefined;
  const [, sign, integerDigits, fractionDigits, fractionOnly, exponentText] = match;
  let integer = integerDigits ?? "";
  let fraction = fractionDigits ?? fractionOnly ?? "";
  if (exponentText !== undefined) {
    const exponent = Number(exponentText);
    if (Math.abs(exponent) > maxExponent) return undefined;
    const digits = integer + fraction;
    const point = integer.length + exponent;
    if (point <= 0) {
      integer = "0";
      fraction = "0".repeat(-point) + digits;
    } else if (point >= digits.length) {
      integer = digits + "0".repeat(point - digits.length);
      fraction = "";
    } else {
      integer = digits.slice(0, point);
      fraction = digits.slice(point);
    }
  }
  integer = integer.replace(/^0+(?=\d)/, "") || "0";
  const negative = sign === "-" && /[1-9]/.test(integer + fraction);
  return `${negative ? "-" : ""}${integer}${fraction === "" ? "" : `.${fraction}`}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
