import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openAccount } from "../../src/mockcore/accounts.js";
import { createDemoLedger } from "../../src/mockcore/demo-data.js";
import type { Ledger, LedgerResult } from "../../src/mockcore/ledger.js";
import { formatMoney } from "../../src/mockcore/money.js";
import { transfer, transferFingerprint } from "../../src/mockcore/transfers.js";

const clock = () => new Date("2026-02-01T12:00:00Z");

/** Sum of the balances of each currency. */
function totals(ledger: Ledger): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const account of ledger.state.accounts.values())
    sums.set(account.currency, (sums.get(account.currency) ?? 0n) + account.ledger);
  return sums;
}

function postings(ledger: Ledger): number {
  let count = 0;
  for (const account of ledger.state.accounts.values()) count += account.transactions.length;
  return count;
}

/** Amounts as a caller could send them: mostly good decimal strings, some bad ones. */
const amountArb = fc.oneof(
  { weight: 8, arbitrary: fc.bigInt({ min: 1n, max: 300000n }).map(formatMoney) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3000 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom("0.00", "-5.00", "1.001", "abc", "") },
);

/** Extra accounts opened before the transfers: [currency, opening deposit in minor units]. */
const extraAccountsArb = fc.array(
  fc.tuple(
    fc.constantFrom("USD", "EUR"),
    fc.option(fc.bigInt({ min: 1n, max: 500000n }), { nil: undefined }),
  ),
  { maxLength: 4 },
);

const transferArb = fc.record({
  from: fc.nat({ max: 7 }),
  to: fc.nat({ max: 7 }),
  amount: amountArb,
  currency: fc.constantFrom("USD", "USD", "USD", "EUR"),
  key: fc.option(fc.constantFrom("k1", "k2", "k3", "k4", "k5"), { nil: undefined }),
});

/** The demo ledger with the extra accounts, and the account numbers transfers pick from (the closed one included). */
function setUp(extra: [string, bigint | undefined][]): { ledger: Ledger; accounts: string[] } {
  const ledger = createDemoLedger(clock);
  for (const [currency, deposit] of extra)
    openAccount(ledger, {
      personId: "P000001",
      productCode: "DDA",
      currency,
      ...(deposit !== undefined && { openingDeposit: formatMoney(deposit) }),
    });
  return { ledger, accounts: [...ledger.state.accounts.keys()] };
}

interface FirstAnswer {
  result: LedgerResult;
  fingerprint: string;
}

/**
 * A repeated key answers as it first did and posts nothing (422 for another transfer), a new transfer posts
 * its two legs, a refused one none; a key's first posted answer goes into `firstAnswers` by its transfer.
 */
function expectPosted(
  ledger: Ledger,
  before: number,
  result: LedgerResult,
  key: string | undefined,
  firstAnswers: Map<string, FirstAnswer>,
  fingerprint: string,
): void {
  const first = key === undefined ? undefined : firstAnswers.get(key);
  if (first) {
    if (first.fingerprint === fingerprint) expect(result).toEqual(first.result);
    else expect(result).toMatchObject({ status: 422, body: { errorCode: "IDEMPOTENCY_KEY_REUSED" } });
    expect(postings(ledger)).toBe(before);
  } else if (result.status === 201) {
    expect(postings(ledger)).toBe(before + 2);
    if (key !== undefined) firstAnswers.set(key, { result, fingerprint });
  } else {
    expect(postings(ledger)).toBe(before);
  }
}

/** Every account's balance is at least zero, all of it available, and its last transaction's running balance. */
function expectBalancesHold(ledger: Ledger): void {
  for (const account of ledger.state.accounts.values()) {
    expect(account.ledger).toBeGreaterThanOrEqual(0n);
    expect(account.available).toBe(account.ledger);
    const last = account.transactions.at(-1);
    expect(last?.runningBalance ?? 0n).toBe(account.ledger);
  }
}

describe("transfers, over any sequence of them", () => {
  it("keep each currency's sum of balances, never take a balance below zero, and post a key once", () => {
    fc.assert(
      fc.property(extraAccountsArb, fc.array(transferArb, { maxLength: 40 }), (extra, transfers) => {
        const { ledger, accounts } = setUp(extra);
        const sums = totals(ledger);
        const firstAnswers = new Map<string, FirstAnswer>();
        for (const { from, to, amount, currency, key } of transfers) {
          const fromAccount = accounts[from % accounts.length];
          const toAccount = accounts[to % accounts.length];
          const before = postings(ledger);
          const body = { fromAccount, toAccount, amount, currency };
          const result = transfer(ledger, body, key);

          expectPosted(ledger, before, result, key, firstAnswers, transferFingerprint(body));

          expect(totals(ledger)).toEqual(sums);
          expectBalancesHold(ledger);
        }
      }),
    );
  });

  it("post a repeated key once, however often it comes", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 235000n }), fc.integer({ min: 2, max: 10 }), (minor, times) => {
        const ledger = createDemoLedger(clock);
        const body = {
          fromAccount: "1000000001",
          toAccount: "1000000002",
          amount: formatMoney(minor),
          currency: "USD",
        };
        const answers = Array.from({ length: times }, () => transfer(ledger, body, "same-key"));
        expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
        expect(answers[0]?.status).toBe(201);
        expect(ledger.state.accounts.get("1000000001")?.ledger).toBe(235000n - minor);
        expect(ledger.state.accounts.get("1000000002")?.ledger).toBe(100000n + minor);
        expect(ledger.state.revision).toBe(1);
      }),
    );
  });
});
