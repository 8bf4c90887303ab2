import { isObject } from "../objects.js";
import type { Address } from "./ledger.js";

/** A JSON object as it arrived: nothing about its fields is known yet. */
export type Fields = Record<string, unknown>;

/** A text that is not blank and has at most `maxLength` characters. */
export function isText(value: unknown, maxLength: number): value is string {
  return typeof value === "string" && value.trim() !== "" && value.length <= maxLength;
}

/** An ISO 4217 code such as USD. */
export function isCurrency(value: unknown): value is string {
  return typeof value === "string" && /^[A-Z]{3}$/.test(value);
}

/** A real calendar day written YYYY-MM-DD (no 2001-02-30). */
export function isDate(value: unknown): value is string {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const day = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
}

/** An address with its required parts, copied field by field (nothing else of the value is kept), or `null`. */
export function readAddress(value: unknown): Address | null {
  if (!isObject(value)) return null;
  const { line1, line2, city, region, postalCode, country } = value;
  const optional = (text: unknown) => text == null || isText(text, 100);
  if (
    !isText(line1, 100) ||
    !isText(city, 100) ||
    !isText(postalCode, 20) ||
    !optional(line2) ||
    !optional(region)
  )
    return null;
  if (typeof country !== "string" || !/^[A-Z]{2}$/.test(country)) return null;
  return {
    line1,
    ...(typeof line2 === "string" && { line2 }),
    city,
    ...(typeof region === "string" && { region }),
    postalCode,
    country,
  };
}
