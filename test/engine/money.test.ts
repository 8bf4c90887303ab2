import { describe, expect, it } from "vitest";
import { runDefinition } from "../_helpers.js";

/** The value of one expression cell, `expression`, in a run of its own. */
async function evaluate(expression: string, payload: unknown = {}): Promise<unknown> {
  const result = await runDefinition(
    `name: money\non_success_hook: ${JSON.stringify(`output.payload = { value: ${expression} }`)}\n`,
    {
      payload,
    },
  );
  const failure = result.record.items.find((item) => item.kind === "FAILURE");
  if (failure?.kind === "FAILURE") throw new Error(failure.error.message);
  return (result.output.payload as { value: unknown }).value;
}

describe("decimal", () => {
  it.each([
    ["decimal('0.1').plus('0.2').toString()", "0.3"],
    ["decimal(0.1).plus(0.2).eq('0.3')", true],
    ["decimal('12.30').toString()", "12.3"],
    ["decimal('12.30').toFixed(2)", "12.30"],
    ["decimal('1e3').toString()", "1000"],
    ["decimal('10').div(3).round(2).toString()", "3.33"],
    ["decimal('2.675').round(2).toString()", "2.68"],
    ["decimal('2.665').round(2, 'half_even').toString()", "2.66"],
    ["decimal('-2.5').round(0, 'down').toString()", "-2"],
    ["decimal('1.01').round(1, 'up').toString()", "1.1"],
    ["decimal('19.99').times(3).minus('0.97').toString()", "59"],
    ["decimal('5').cmp('7')", -1],
    ["decimal(null)", null],
    ["JSON.stringify({ amount: decimal('100.10') })", '{"amount":"100.1"}'],
  ])("%s is %j", async (expression, expected) => {
    expect(await evaluate(expression)).toEqual(expected);
  });

  it("refuses what is not a number, and a mode that is not one", async () => {
    await expect(evaluate("decimal('12,30')")).rejects.toThrow('decimal: not a number: "12,30"');
    await expect(evaluate("decimal(Infinity)")).rejects.toThrow("not a finite number");
    await expect(evaluate("decimal('1').round(0, 'nearest')")).rejects.toThrow("round: the mode is down");
  });

  it("keeps its settings frozen: no run changes another's rounding", async () => {
    await expect(evaluate("(decimal('1').constructor.DP = 0)")).rejects.toThrow();
    expect(await evaluate("decimal('1').div(3).toString()")).toBe("0.33333333333333333333");
  });
});

describe("data_utils", () => {
  it.each([
    ["data_utils.round_half_up('2.675', 2)", "2.68"],
    ["data_utils.round_half_up(2.675, 2)", 2.68],
    ["data_utils.round_half_up('7', 2)", "7.00"],
    ["data_utils.round_half_up(null, 2)", null],
    ["data_utils.round_half_up('', 2)", ""],
    ["data_utils.percent_to_decimal('12.5')", "0.125"],
    ["data_utils.percent_to_decimal(7)", 0.07],
    ["data_utils.percent_to_decimal(null)", null],
    ["data_utils.extract_digits('+1 (555) 555-0142')", "15555550142"],
    ["data_utils.extract_digits('')", ""],
    ["data_utils.extract_digits(null)", null],
    ["data_utils.extract_chars('Zoë-42 O\\'Neil')", "ZoëONeil"],
    ["data_utils.convert_date_string('12/09/1986', '%m/%d/%Y', '%Y-%m-%d')", "1986-12-09"],
    [
      "data_utils.convert_date_string('09 Dec 1986 14:05', '%d %b %Y %H:%M', '%Y-%m-%dT%H:%M:%S')",
      "1986-12-09T14:05:00",
    ],
    ["data_utils.convert_date_string('', '%Y', '%Y')", ""],
    [
      "/^\\d{4}-\\d{2}-\\d{2}$/.test(data_utils.get_current_date_string('America/New_York', '%Y-%m-%d'))",
      true,
    ],
    [
      "(() => { const index = new data_utils.IndexGenerator(1); return [index.next(), index.next(), index.next()] })()",
      [1, 2, 3],
    ],
  ])("%s is %j", async (expression, expected) => {
    expect(await evaluate(expression)).toEqual(expected);
  });

  it("says which date does not match its format", async () => {
    await expect(evaluate("data_utils.convert_date_string('1986-12-09', '%m/%d/%Y', '%Y')")).rejects.toThrow(
      'convert_date_string: "1986-12-09" does not match "%m/%d/%Y"',
    );
  });
});

describe("decimal's and data_utils' limits", () => {
  it("refuses numbers no money needs, that would keep a cell busy past its limit", async () => {
    await expect(evaluate("decimal('1e50000000').toFixed(2)")).rejects.toThrow("an exponent past 1000");
    await expect(evaluate(`decimal('${"9".repeat(101)}')`)).rejects.toThrow("more than 100 characters");
  });

  it("reads two-digit years as Python does, and refuses a date that is none", async () => {
    expect(await evaluate("data_utils.convert_date_string('26/08/78', '%d/%m/%y', '%Y-%m-%d')")).toBe(
      "1978-08-26",
    );
    expect(await evaluate("data_utils.convert_date_string('26/08/24', '%d/%m/%y', '%Y-%m-%d')")).toBe(
      "2024-08-26",
    );
    await expect(evaluate("data_utils.convert_date_string('45/13/2024', '%d/%m/%Y', '%Y')")).rejects.toThrow(
      "is no date",
    );
    await expect(evaluate("data_utils.convert_date_string('09 Xyz 1986', '%d %b %Y', '%Y')")).rejects.toThrow(
      "is no date",
    );
  });
});

describe("a decimal in the run history", () => {
  it("is recorded as its text, as the answer's JSON writes it, not as big.js's fields", async () => {
    const result = await runDefinition(
      "name: money\non_success_hook: |\n  historize({ fee: decimal('12.30') }, 'fee')\n  output.payload = { total: decimal('0.1').plus('0.2') }\n",
      { payload: {} },
    );
    const items = result.record.items;
    expect(items.find((item) => item.kind === "DEBUG")).toMatchObject({ data: { fee: "12.3" } });
    expect(items.find((item) => item.kind === "OUTPUT")).toMatchObject({
      data: { payload: { total: "0.3" } },
    });
  });
});
