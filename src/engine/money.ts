import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { NativeLibrary } from "./realm.js";

// Money is never arithmetic on floats. `decimal` is big.js, made in the cells' realm so that its values
// are the realm's own (methods and all), with its settings frozen: no run changes another's rounding.
// `data_utils` follows the platform's rules: null in, null out; "" stays "" for the text helpers.

/** big.js's source, as CommonJS: read when a cell first uses `decimal`. */
function bigSource(): string {
  return readFileSync(createRequire(import.meta.url).resolve("big.js/big.js"), "utf8");
}

const decimalSource = () => `(() => {
  const module = { exports: {} };
  ${bigSource()}
  const Decimal = module.exports();
  Decimal.DP = 20;
  Decimal.RM = 1;
  const modes = { down: 0, half_up: 1, half_even: 2, up: 3, ROUND_DOWN: 0, ROUND_HALF_UP: 1, ROUND_HALF_EVEN: 2, ROUND_UP: 3 };
  const mode = (given) => {
    if (given === undefined) return 1;
    if (Object.hasOwn(modes, given)) return modes[given];
    throw new TypeError("round: the mode is down, half_up, half_even or up, not " + String(given));
  };
  const round = Decimal.prototype.round;
  Object.defineProperty(Decimal.prototype, "round", {
    value: function (places = 0, rounding) {
      return round.call(this, places, mode(rounding));
    },
  });
  const decimal = (value) => {
    if (value === null || value === undefined) return null;
    if (value instanceof Decimal) return value;
    if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError("decimal: not a finite number: " + value);
    // Money has no need of more: a longer text, or an exponent past 1000, would keep a cell busy past its limit.
    const text = String(value).trim();
    const exponent = /e([+-]?\\d+)$/i.exec(text);
    if (text.length > 100 || (exponent && Math.abs(Number(exponent[1])) > 1000))
      throw new TypeError("decimal: a number of more than 100 characters, or an exponent past 1000: " + JSON.stringify(text.slice(0, 20)));
    try {
      return new Decimal(typeof value === "string" ? value.trim() : value);
    } catch {
      throw new TypeError("decimal: not a number: " + JSON.stringify(String(value)));
    }
  };
  Object.freeze(Decimal.prototype);
  Object.freeze(Decimal);
  return () => Object.freeze(decimal);
})()`;

const dataUtilsSource = () => `((decimal) => {
  const text = (value) => (value === null || value === undefined ? null : String(value));
  /** A result of the input's kind: a string for a string, a number for a number. */
  const like = (input, result) => (typeof input === "number" ? Number(result) : result.toString());
  const round_half_up = (value, places = 0) => {
    if (value === null || value === undefined) return null;
    if (value === "") return "";
    return like(value, decimal(value).round(places, "half_up").toFixed(places));
  };
  const percent_to_decimal = (value) => {
    if (value === null || value === undefined) return null;
    if (value === "") return "";
    return like(value, decimal(value).div(100));
  };
  const extract_digits = (value) => text(value)?.replace(/[^0-9]/g, "") ?? null;
  const extract_chars = (value) => text(value)?.replace(/[^\\p{L}]/gu, "") ?? null;
  const monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  const pad = (number, width = 2) => String(number).padStart(width, "0");
  /** strftime's common directives: %Y %y %m %d %H %M %S %f %b %B %%. */
  const format = (parts, pattern) =>
    pattern.replace(/%([YymdHMSfbB%])/g, (_, directive) => {
      switch (directive) {
        case "Y": return pad(parts.year, 4);
        case "y": return pad(parts.year % 100);
        case "m": return pad(parts.month);
        case "d": return pad(parts.day);
        case "H": return pad(parts.hour);
        case "M": return pad(parts.minute);
        case "S": return pad(parts.second);
        case "f": return pad(parts.microsecond, 6);
        case "b": return monthNames[parts.month - 1].slice(0, 3);
        case "B": return monthNames[parts.month - 1];
        default: return "%";
      }
    });
  const fields = { Y: "(\\\\d{4})", y: "(\\\\d{2})", m: "(\\\\d{1,2})", d: "(\\\\d{1,2})", H: "(\\\\d{1,2})", M: "(\\\\d{1,2})", S: "(\\\\d{1,2})", f: "(\\\\d{1,6})", b: "([A-Za-z]{3})", B: "([A-Za-z]+)" };
  const parse = (value, pattern) => {
    const order = [];
    const source = pattern.replace(/[.*+?^\${}()|[\\]\\\\]/g, "\\\\$&").replace(/%([YymdHMSfbB%])/g, (_, directive) => {
      if (directive === "%") return "%";
      order.push(directive);
      return fields[directive];
    });
    const match = new RegExp("^" + source + "$").exec(value);
    if (!match) throw new TypeError("convert_date_string: " + JSON.stringify(value) + " does not match " + JSON.stringify(pattern));
    const parts = { year: 1900, month: 1, day: 1, hour: 0, minute: 0, second: 0, microsecond: 0 };
    order.forEach((directive, index) => {
      const found = match[index + 1];
      const month = (name) =>
        monthNames.findIndex((full) => (name.length === 3 ? full.slice(0, 3) : full).toLowerCase() === name.toLowerCase()) + 1;
      if (directive === "Y") parts.year = Number(found);
      else if (directive === "y") parts.year = (Number(found) < 69 ? 2000 : 1900) + Number(found);
      else if (directive === "m") parts.month = Number(found);
      else if (directive === "d") parts.day = Number(found);
      else if (directive === "H") parts.hour = Number(found);
      else if (directive === "M") parts.minute = Number(found);
      else if (directive === "S") parts.second = Number(found);
      else if (directive === "f") parts.microsecond = Number(found.padEnd(6, "0"));
      else parts.month = month(found);
    });
    const days = new Date(Date.UTC(parts.year, parts.month, 0)).getUTCDate();
    if (parts.month < 1 || parts.month > 12 || parts.day < 1 || parts.day > days || parts.hour > 23 || parts.minute > 59 || parts.second > 59)
      throw new TypeError("convert_date_string: " + JSON.stringify(value) + " is no date");
    return parts;
  };
  const get_current_date_string = (timeZone = "UTC", pattern = "%Y-%m-%d") => {
    const now = new Date();
    const shown = Object.fromEntries(
      new Intl.DateTimeFormat("en-US", {
        timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric",
      }).formatToParts(now).map((part) => [part.type, part.value]),
    );
    return format({
      year: Number(shown.year), month: Number(shown.month), day: Number(shown.day),
      hour: Number(shown.hour), minute: Number(shown.minute), second: Number(shown.second),
      microsecond: now.getUTCMilliseconds() * 1000,
    }, pattern);
  };
  const convert_date_string = (value, inPattern, outPattern) => {
    if (value === null || value === undefined) return null;
    if (value === "") return "";
    return format(parse(String(value), inPattern), outPattern);
  };
  class IndexGenerator {
    #next;
    constructor(start = 0) {
      this.#next = start;
    }
    next() {
      return this.#next++;
    }
  }
  return {
    round_half_up, percent_to_decimal, extract_digits, extract_chars,
    get_current_date_string, convert_date_string, IndexGenerator,
  };
})`;

/** The money libraries of the cells' realm, by the names cells read them under. */
export const moneyLibraries: Readonly<Record<string, NativeLibrary>> = {
  decimal: {
    source: decimalSource,
    textPrototypes: (decimal) => [Object.getPrototypeOf((decimal as (value: string) => object)("0"))],
  },
  data_utils: { source: dataUtilsSource, uses: ["decimal"] },
};
