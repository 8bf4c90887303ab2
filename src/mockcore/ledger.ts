import type { Minor } from "./money.js";

/**
 * The mock core's ledger (docs/mockcore.md#the-mock-cores-api): persons, accounts with their postings, and transfers by
 * idempotency key. Pure: no I/O, time and ids come in through the Ledger. Every operation is
 * synchronous and checks everything before it changes anything, so a balance read and the posting
 * that relies on it can never be split by another request, and a transfer posts both legs or none.
 * Operations answer `{ status, body }` in the core's HTTP shape, for the HTTP face to send as is.
 *
 * This file holds the ledger's records and state; the operations are in persons.ts, accounts.ts and
 * transfers.ts, the demo data in demo-data.ts and the data file's format in ledger-file.ts.
 */

/** 1 active, 2 inactive, 9 closed. */
export type StatusCode = 1 | 2 | 9;
export type ProductCode = "DDA" | "SAV";

export interface Address {
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postalCode: string;
  country: string;
}

export interface Person {
  personId: string;
  firstName: string;
  lastName: string;
  email: string;
  birthDate: string;
  taxId: string;
  phone?: string;
  address?: Address;
  statusCode: StatusCode;
  createdAt: string;
}

export interface Transaction {
  txnId: string;
  postedAt: string;
  amount: Minor;
  drCr: "D" | "C";
  description: string;
  runningBalance: Minor;
}

export interface Account {
  accountNumber: string;
  personId: string;
  productCode: ProductCode;
  statusCode: StatusCode;
  currency: string;
  ledger: Minor;
  available: Minor;
  /** Oldest first. */
  transactions: Transaction[];
}

export interface TransferAnswer {
  transferId: string;
  status: "POSTED";
  debitTxnId: string;
  creditTxnId: string;
  postedAt: string;
}

/** A transfer's first answer, and the fingerprint of the request that got it: a key is one request's. */
export interface KeyedTransfer {
  fingerprint: string;
  answer: TransferAnswer;
}

export type IdKind = "person" | "account" | "transfer" | "txn";

export interface LedgerState {
  persons: Map<string, Person>;
  accounts: Map<string, Account>;
  /** The first answer to each idempotency key, with its request's fingerprint. */
  transfers: Map<string, KeyedTransfer>;
  /** The number the next id of each kind is made from. */
  sequences: Record<IdKind, number>;
  /** Goes up with every change, so a caller can tell whether an operation changed anything. */
  revision: number;
}

/** Makes the next id of a kind, advancing `sequences` as it needs. */
export type IdGenerator = (kind: IdKind, sequences: Record<IdKind, number>) => string;

export interface LedgerOptions {
  clock?: () => Date;
  nextId?: IdGenerator;
}

export interface Ledger {
  state: LedgerState;
  clock: () => Date;
  nextId: IdGenerator;
}

/** An answer in the core's HTTP shape; errors have the body `{ errorCode, errorMessage }`. */
export interface LedgerResult {
  status: number;
  body: object;
}

/** Where numbering starts; lower numbers belong to the demo data (P000042, 1000000042, TR00000017, T000201). */
const firstSequences: Readonly<Record<IdKind, number>> = {
  person: 42,
  account: 1000000042,
  transfer: 17,
  txn: 201,
};

/** Ids in the core's conventions from `sequences`: P000042, 1000000042, TR00000017, T000201. */
export function sequentialId(kind: IdKind, sequences: Record<IdKind, number>): string {
  const number = sequences[kind]++;
  if (kind === "person") return `P${String(number).padStart(6, "0")}`;
  if (kind === "transfer") return `TR${String(number).padStart(8, "0")}`;
  if (kind === "txn") return `T${String(number).padStart(6, "0")}`;
  return String(number);
}

/** A ledger with no persons or accounts. */
export function createLedger(options: LedgerOptions = {}): Ledger {
  return {
    state: {
      persons: new Map(),
      accounts: new Map(),
      transfers: new Map(),
      sequences: { ...firstSequences },
      revision: 0,
    },
    clock: options.clock ?? (() => new Date()),
    nextId: options.nextId ?? sequentialId,
  };
}

/** An instant as the core writes it: ISO 8601 in UTC, whole seconds ("2026-01-20T16:45:03Z"). */
export function coreTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
