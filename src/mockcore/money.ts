/**
 * Money in the mock core: integer minor units (cents) as bigints, read from and written as decimal
 * strings with two places ("150.00"). No value ever passes through a binary float.
 */
export type Minor = bigint;

/** Digits, then at most two decimals: no sign, exponent, blank or lone point. */
const moneyText = /^(\d{1,30})(?:\.(\d{1,2}))?$/;
/** The largest amount one posting may move: 15 integer digits, as the samples' validation rules allow. */
const maxAmount: Minor = 10n ** 17n - 1n;

/** A decimal string of zero or more ("0.00", "2350", "84.9") in minor units, or `undefined`. */
export function parseMoney(text: unknown): Minor | undefined {
  if (typeof text !== "string") return undefined;
  const match = moneyText.exec(text);
  if (!match) return undefined;
  const [, units = "0", cents = ""] = match;
  return BigInt(units) * 100n + BigInt(cents.padEnd(2, "0"));
}

/** An amount to post: a decimal string above zero, at most two decimals and 15 integer digits; otherwise `undefined`. */
export function parseAmount(text: unknown): Minor | undefined {
  const minor = parseMoney(text);
  return minor !== undefined && minor > 0n && minor <= maxAmount ? minor : undefined;
}

/** Minor units as a decimal string with two places: 15000n → "150.00", 5n → "0.05". */
export function formatMoney(minor: Minor): string {
  const sign = minor < 0n ? "-" : "";
  const digits = (minor < 0n ? -minor : minor).toString().padStart(3, "0");
  return `${sign}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
