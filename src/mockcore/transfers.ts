import { createHash } from "node:crypto";
import { isObject } from "../objects.js";
import { post } from "./accounts.js";
import { amountRule, coreError, invalid, notFound, statusWord } from "./core-error.js";
import { isCurrency, isText } from "./field-checks.js";
import {
  type Account,
  coreTimestamp,
  type Ledger,
  type LedgerResult,
  type TransferAnswer,
} from "./ledger.js";
import { formatMoney, type Minor, parseAmount } from "./money.js";

/**
 * `POST /core/v1/transfers` (`X-Idempotency-Key` optional): posts the debit and the credit together,
 * 201 `{ transferId, status: "POSTED", debitTxnId, creditTxnId, postedAt }`. A key already used gets
 * its first answer again and posts nothing, when it comes with the same transfer; with another it gets 422
 * `IDEMPOTENCY_KEY_REUSED` (a 201 would tell of money that never moved). Errors: 400 bad body or amount,
 * 404 unknown account, 409 account closed or inactive, 422 currency mismatch or insufficient funds. Only
 * a posted transfer keeps its key, so a rejected one can be retried with the same key.
 */
export function transfer(ledger: Ledger, body: unknown, idempotencyKey?: string): LedgerResult {
  const { state } = ledger;
  if (idempotencyKey !== undefined) {
    if (idempotencyKey.length < 1 || idempotencyKey.length > 255)
      return invalid("X-Idempotency-Key must have 1 to 255 characters");
    const first = state.transfers.get(idempotencyKey);
    if (first?.fingerprint === transferFingerprint(body)) return { status: 201, body: { ...first.answer } };
    if (first)
      return coreError(422, "IDEMPOTENCY_KEY_REUSED", "this X-Idempotency-Key was used for another transfer");
  }
  const read = readTransfer(body);
  if ("status" in read) return read;
  const accounts = findAccounts(ledger, read);
  if ("status" in accounts) return accounts;

  // Everything is checked: from here on nothing can fail, so both legs post.
  const { from, to } = accounts;
  const { amount, memo } = read;
  const postedAt = coreTimestamp(ledger.clock());
  const transferId = ledger.nextId("transfer", state.sequences);
  const debitTxnId = ledger.nextId("txn", state.sequences);
  const creditTxnId = ledger.nextId("txn", state.sequences);
  const text = typeof memo === "string" && memo !== "" ? memo : undefined;
  post(from, "D", amount, text ?? `Transfer to ${to.accountNumber}`, postedAt, debitTxnId);
  post(to, "C", amount, text ?? `Transfer from ${from.accountNumber}`, postedAt, creditTxnId);
  const answer: TransferAnswer = { transferId, status: "POSTED", debitTxnId, creditTxnId, postedAt };
  if (idempotencyKey !== undefined)
    state.transfers.set(idempotencyKey, { fingerprint: transferFingerprint(body), answer });
  state.revision++;
  return { status: 201, body: { ...answer } };
}

/** The sha256 of what a transfer asks for: the same accounts, amount, currency and memo are the same transfer. */
export function transferFingerprint(body: unknown): string {
  const asked = isObject(body)
    ? [body.fromAccount, body.toAccount, body.amount, body.currency, body.memo ?? null]
    : (body ?? null);
  return createHash("sha256").update(JSON.stringify(asked)).digest("hex");
}

/** A transfer's body, each field checked. */
interface TransferRequest {
  fromAccount: string;
  toAccount: string;
  amount: Minor;
  currency: string;
  memo: unknown;
}

/** The body as a TransferRequest, or the 400 that lists everything wrong with it. */
function readTransfer(body: unknown): TransferRequest | LedgerResult {
  if (!isObject(body)) return invalid("the body must be a JSON object");
  const { fromAccount, toAccount, currency, memo } = body;
  const amount = parseAmount(body.amount);
  const problems = [
    isText(fromAccount, 64) ? "" : "fromAccount is required",
    isText(toAccount, 64) ? "" : "toAccount is required",
    amount !== undefined ? "" : `amount ${amountRule}`,
    isCurrency(currency) ? "" : "currency must be an ISO 4217 code such as USD",
    memo == null || (typeof memo === "string" && memo.length <= 140)
      ? ""
      : "memo must be a text of at most 140 characters",
    fromAccount !== toAccount ? "" : "fromAccount and toAccount must differ",
  ].filter(Boolean);
  if (problems.length > 0 || amount === undefined) return invalid(problems.join("; "));
  return {
    fromAccount: fromAccount as string,
    toAccount: toAccount as string,
    amount,
    currency: currency as string,
    memo,
  };
}

/** Both accounts, when they exist, are active, hold the currency and the debit has the funds; else the error. */
function findAccounts(
  ledger: Ledger,
  request: TransferRequest,
): { from: Account; to: Account } | LedgerResult {
  const { fromAccount, toAccount, amount, currency } = request;
  const from = ledger.state.accounts.get(fromAccount);
  if (!from) return notFound("account", fromAccount);
  const to = ledger.state.accounts.get(toAccount);
  if (!to) return notFound("account", toAccount);
  for (const account of [from, to]) {
    if (account.statusCode !== 1)
      return coreError(
        409,
        account.statusCode === 9 ? "ACCOUNT_CLOSED" : "ACCOUNT_INACTIVE",
        `account ${account.accountNumber} is ${statusWord(account.statusCode)}`,
      );
    if (account.currency !== currency)
      return coreError(
        422,
        "CURRENCY_MISMATCH",
        `the transfer is in ${currency}, account ${account.accountNumber} holds ${account.currency}`,
      );
  }
  if (from.available < amount)
    return coreError(
      422,
      "INSUFFICIENT_FUNDS",
      `account ${from.accountNumber} has not enough available funds for ${formatMoney(amount)} ${currency}`,
    );
  return { from, to };
}
