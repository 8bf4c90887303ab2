import { isObject } from "../objects.js";
import { amountRule, coreError, invalid, notFound, statusWord } from "./core-error.js";
import { isCurrency, isDate, isText } from "./field-checks.js";
import { type Account, coreTimestamp, type Ledger, type LedgerResult, type ProductCode } from "./ledger.js";
import { type Minor, parseAmount } from "./money.js";
import { accountView, transactionView } from "./views.js";

/** The filters and paging of `listTransactions`, as the query string has them. */
export interface TransactionQuery {
  fromDate?: string | undefined;
  toDate?: string | undefined;
  limit?: string | undefined;
  offset?: string | undefined;
}

const defaultLimit = 50;
const maxLimit = 200;

/** `POST /core/v1/accounts`: 201 with the account (an `openingDeposit` posts a credit), 400, 404 or 409 (person not active). */
export function openAccount(ledger: Ledger, body: unknown): LedgerResult {
  if (!isObject(body)) return invalid("the body must be a JSON object");
  const { personId, productCode, currency, openingDeposit } = body;
  const deposit = openingDeposit == null ? undefined : parseAmount(openingDeposit);
  const problems = [
    isText(personId, 64) ? "" : "personId is required",
    productCode === "DDA" || productCode === "SAV" ? "" : "productCode must be DDA or SAV",
    isCurrency(currency) ? "" : "currency must be an ISO 4217 code such as USD",
    openingDeposit == null || deposit !== undefined ? "" : `openingDeposit ${amountRule}`,
  ].filter(Boolean);
  if (problems.length > 0) return invalid(problems.join("; "));

  const person = ledger.state.persons.get(personId as string);
  if (!person) return notFound("person", personId as string);
  if (person.statusCode !== 1)
    return coreError(
      409,
      "PERSON_NOT_ACTIVE",
      `person ${person.personId} is ${statusWord(person.statusCode)}`,
    );

  const account: Account = {
    accountNumber: ledger.nextId("account", ledger.state.sequences),
    personId: person.personId,
    productCode: productCode as ProductCode,
    statusCode: 1,
    currency: currency as string,
    ledger: 0n,
    available: 0n,
    transactions: [],
  };
  if (deposit !== undefined) {
    const postedAt = coreTimestamp(ledger.clock());
    post(account, "C", deposit, "Opening deposit", postedAt, ledger.nextId("txn", ledger.state.sequences));
  }
  ledger.state.accounts.set(account.accountNumber, account);
  ledger.state.revision++;
  return { status: 201, body: accountView(account) };
}

/** `GET /core/v1/accounts/{accountNumber}`: 200 with the account and its balances, or 404. */
export function getAccount(ledger: Ledger, accountNumber: string): LedgerResult {
  const account = ledger.state.accounts.get(accountNumber);
  return account ? { status: 200, body: accountView(account) } : notFound("account", accountNumber);
}

/**
 * `GET /core/v1/accounts/{accountNumber}/transactions`: 200 `{ items, total }`, oldest first;
 * `fromDate`/`toDate` (YYYY-MM-DD, inclusive) filter by posting day, `limit` (1–200, default 50)
 * and `offset` (default 0) page through them; `total` counts every match.
 */
export function listTransactions(
  ledger: Ledger,
  accountNumber: string,
  query: TransactionQuery,
): LedgerResult {
  const { fromDate, toDate, limit, offset } = query;
  const problems = [
    fromDate === undefined || isDate(fromDate) ? "" : "fromDate must be a date (YYYY-MM-DD)",
    toDate === undefined || isDate(toDate) ? "" : "toDate must be a date (YYYY-MM-DD)",
    limit === undefined || (/^\d{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= maxLimit)
      ? ""
      : `limit must be a whole number from 1 to ${maxLimit}`,
    offset === undefined || /^\d{1,9}$/.test(offset) ? "" : "offset must be a whole number, 0 or more",
  ].filter(Boolean);
  if (problems.length > 0) return invalid(problems.join("; "));
  const account = ledger.state.accounts.get(accountNumber);
  if (!account) return notFound("account", accountNumber);

  const matching = account.transactions.filter((txn) => {
    const day = txn.postedAt.slice(0, 10);
    return (fromDate === undefined || day >= fromDate) && (toDate === undefined || day <= toDate);
  });
  const start = offset === undefined ? 0 : Number(offset);
  const end = start + (limit === undefined ? defaultLimit : Number(limit));
  return {
    status: 200,
    body: { items: matching.slice(start, end).map(transactionView), total: matching.length },
  };
}

/** Posts a debit or a credit to the account: both balances move and the transaction is appended. */
export function post(
  account: Account,
  drCr: "D" | "C",
  amount: Minor,
  description: string,
  postedAt: string,
  txnId: string,
): void {
  const change = drCr === "C" ? amount : -amount;
  account.ledger += change;
  account.available += change;
  account.transactions.push({ txnId, postedAt, amount, drCr, description, runningBalance: account.ledger });
}
