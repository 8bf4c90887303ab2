import type { LedgerResult, StatusCode } from "./ledger.js";

/** The core's error codes, the `errorCode` of its error bodies. */
export type ErrorCode =
  | "INVALID_REQUEST"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "PAYLOAD_TOO_LARGE"
  | "PERSON_NOT_ACTIVE"
  | "ACCOUNT_CLOSED"
  | "ACCOUNT_INACTIVE"
  | "INSUFFICIENT_FUNDS"
  | "CURRENCY_MISMATCH"
  | "IDEMPOTENCY_KEY_REUSED"
  | "INTERNAL";

/** What an amount must look like, for the messages that reject one. */
export const amountRule = 'must be a decimal string above zero with at most two decimals, such as "150.00"';

/** A core error answer. */
export function coreError(status: number, errorCode: ErrorCode, errorMessage: string): LedgerResult {
  return { status, body: { errorCode, errorMessage } };
}

/** 400 INVALID_REQUEST. */
export function invalid(message: string): LedgerResult {
  return coreError(400, "INVALID_REQUEST", message);
}

/** 404 NOT_FOUND for a person or an account. */
export function notFound(what: "person" | "account", id: string): LedgerResult {
  return coreError(404, "NOT_FOUND", `${what} ${JSON.stringify(id)} not found`);
}

/** A status code in words, for messages. */
export function statusWord(code: StatusCode): string {
  return code === 1 ? "active" : code === 2 ? "inactive" : "closed";
}
