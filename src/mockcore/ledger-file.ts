import { BassError } from "../errors.js";
import { isObject } from "../objects.js";
import { type Fields, readAddress } from "./field-checks.js";
import {
  type Account,
  createLedger,
  type IdKind,
  type Ledger,
  type LedgerOptions,
  type Person,
  type StatusCode,
  type TransferAnswer,
} from "./ledger.js";
import { type Minor, parseMoney } from "./money.js";
import { accountView, personView, transactionView } from "./views.js";

/** The ledger's data as JSON text (money as decimal strings), for `deserializeLedger` to read back. */
export function serializeLedger(ledger: Ledger): string {
  const { persons, accounts, transfers, sequences } = ledger.state;
  const data = {
    format: "bass-mockcore",
    version: 1,
    sequences,
    persons: [...persons.values()].map(personView),
    accounts: [...accounts.values()].map((account) => ({
      ...accountView(account),
      transactions: account.transactions.map(transactionView),
    })),
    transfers: [...transfers].map(([idempotencyKey, { fingerprint, answer }]) => ({
      idempotencyKey,
      fingerprint,
      ...answer,
    })),
  };
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** A ledger from `serializeLedger`'s text; throws a FILE_UNREADABLE BassError naming the first thing that is wrong. */
export function deserializeLedger(text: string, options: LedgerOptions = {}): Ledger {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw unreadable(`it is not JSON (${(error as Error).message})`);
  }
  const root = fields(data, "the file");
  if (root.format !== "bass-mockcore" || root.version !== 1)
    throw unreadable('it is not mock core data of version 1 ({ "format": "bass-mockcore", "version": 1 })');
  const ledger = createLedger(options);
  const sequenceFields = fields(root.sequences, "sequences");
  const { sequences } = ledger.state;
  for (const kind of Object.keys(sequences) as IdKind[]) {
    const number = sequenceFields[kind];
    if (!Number.isSafeInteger(number) || (number as number) < 1)
      throw unreadable(`sequences.${kind} is not a whole number`);
    sequences[kind] = number as number;
  }
  for (const [index, value] of list(root.persons, "persons").entries()) {
    const person = readPerson(fields(value, `persons[${index}]`), `persons[${index}]`);
    ledger.state.persons.set(person.personId, person);
  }
  for (const [index, value] of list(root.accounts, "accounts").entries()) {
    const account = readAccount(fields(value, `accounts[${index}]`), `accounts[${index}]`);
    ledger.state.accounts.set(account.accountNumber, account);
  }
  for (const [index, value] of list(root.transfers, "transfers").entries()) {
    const at = `transfers[${index}]`;
    const item = fields(value, at);
    const answer: TransferAnswer = {
      transferId: string(item, "transferId", at),
      status: "POSTED",
      debitTxnId: string(item, "debitTxnId", at),
      creditTxnId: string(item, "creditTxnId", at),
      postedAt: string(item, "postedAt", at),
    };
    // A key kept before fingerprints were: no later request can be shown to be its own, so none replays it.
    const fingerprint = item.fingerprint === undefined ? "" : string(item, "fingerprint", at);
    ledger.state.transfers.set(string(item, "idempotencyKey", at), { fingerprint, answer });
  }
  return ledger;
}

function readPerson(item: Fields, at: string): Person {
  const address = item.address == null ? undefined : readAddress(item.address);
  if (address === null) throw unreadable(`${at}.address is not an address`);
  return {
    personId: string(item, "personId", at),
    firstName: string(item, "firstName", at),
    lastName: string(item, "lastName", at),
    email: string(item, "email", at),
    birthDate: string(item, "birthDate", at),
    taxId: string(item, "taxId", at),
    ...(item.phone != null && { phone: string(item, "phone", at) }),
    ...(address && { address }),
    statusCode: statusCode(item, at),
    createdAt: string(item, "createdAt", at),
  };
}

function readAccount(item: Fields, at: string): Account {
  const balances = fields(item.balances, `${at}.balances`);
  const productCode = item.productCode;
  if (productCode !== "DDA" && productCode !== "SAV") throw unreadable(`${at}.productCode is not DDA or SAV`);
  return {
    accountNumber: string(item, "accountNumber", at),
    personId: string(item, "personId", at),
    productCode,
    statusCode: statusCode(item, at),
    currency: string(item, "currency", at),
    ledger: money(balances, "ledger", `${at}.balances`),
    available: money(balances, "available", `${at}.balances`),
    transactions: list(item.transactions, `${at}.transactions`).map((value, index) => {
      const where = `${at}.transactions[${index}]`;
      const txn = fields(value, where);
      if (txn.drCr !== "D" && txn.drCr !== "C") throw unreadable(`${where}.drCr is not D or C`);
      return {
        txnId: string(txn, "txnId", where),
        postedAt: string(txn, "postedAt", where),
        amount: money(txn, "amount", where),
        drCr: txn.drCr,
        description: string(txn, "description", where),
        runningBalance: money(txn, "runningBalance", where),
      };
    }),
  };
}

function unreadable(reason: string): BassError {
  return new BassError("FILE_UNREADABLE", `not mock core data: ${reason}`);
}

function fields(value: unknown, at: string): Fields {
  if (!isObject(value)) throw unreadable(`${at} is not an object`);
  return value;
}

function list(value: unknown, at: string): unknown[] {
  if (!Array.isArray(value)) throw unreadable(`${at} is not a list`);
  return value;
}

function string(item: Fields, key: string, at: string): string {
  const value = item[key];
  if (typeof value !== "string") throw unreadable(`${at}.${key} is not a string`);
  return value;
}

function money(item: Fields, key: string, at: string): Minor {
  const value = parseMoney(item[key]);
  if (value === undefined) throw unreadable(`${at}.${key} is not an amount such as "150.00"`);
  return value;
}

function statusCode(item: Fields, at: string): StatusCode {
  const value = item.statusCode;
  if (value !== 1 && value !== 2 && value !== 9) throw unreadable(`${at}.statusCode is not 1, 2 or 9`);
  return value;
}
