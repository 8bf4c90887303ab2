import { BassError } from "../errors.js";
import { formatMoney, type Minor, parseAmount, parseMoney } from "./money.js";

/**
 * The mock core's ledger (SPEC §9): persons, accounts with their postings, and transfers by
 * idempotency key. Pure: no I/O, time and ids come in through the Ledger. Every operation is
 * synchronous and checks everything before it changes anything, so a balance read and the posting
 * that relies on it can never be split by another request, and a transfer posts both legs or none.
 * Operations answer `{ status, body }` in the core's HTTP shape, for the HTTP face to send as is.
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

export type IdKind = "person" | "account" | "transfer" | "txn";

export interface LedgerState {
  persons: Map<string, Person>;
  accounts: Map<string, Account>;
  /** The first answer to each idempotency key. */
  transfers: Map<string, TransferAnswer>;
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
  | "INTERNAL";

/** An answer in the core's HTTP shape; errors have the body `{ errorCode, errorMessage }`. */
export interface LedgerResult {
  status: number;
  body: object;
}

export interface TransactionQuery {
  fromDate?: string | undefined;
  toDate?: string | undefined;
  limit?: string | undefined;
  offset?: string | undefined;
}

/** Where numbering starts; lower numbers belong to the demo data (P000042, 1000000042, TR00000017, T000201). */
const firstSequences: Readonly<Record<IdKind, number>> = {
  person: 42,
  account: 1000000042,
  transfer: 17,
  txn: 201,
};
const defaultLimit = 50;
const maxLimit = 200;

type Fields = Record<string, unknown>;

/** A core error answer. */
export function coreError(status: number, errorCode: ErrorCode, errorMessage: string): LedgerResult {
  return { status, body: { errorCode, errorMessage } };
}

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
  return wrapState(
    {
      persons: new Map(),
      accounts: new Map(),
      transfers: new Map(),
      sequences: { ...firstSequences },
      revision: 0,
    },
    options,
  );
}

function wrapState(state: LedgerState, options: LedgerOptions): Ledger {
  return { state, clock: options.clock ?? (() => new Date()), nextId: options.nextId ?? sequentialId };
}

/** `POST /core/v1/persons`: 201 `{ personId, statusCode, createdAt }`, or 400 naming every bad field. */
export function createPerson(ledger: Ledger, body: unknown): LedgerResult {
  if (!isFields(body)) return invalid("the body must be a JSON object");
  const problems: string[] = [];
  const now = ledger.clock();
  const check = (ok: boolean, message: string) => ok || problems.push(message);
  check(isText(body.firstName, 100), "firstName is required (at most 100 characters)");
  check(isText(body.lastName, 100), "lastName is required (at most 100 characters)");
  check(
    isText(body.email, 254) && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(body.email),
    "email must be an e-mail address",
  );
  check(
    isDate(body.birthDate) && body.birthDate < timestamp(now),
    "birthDate must be a past date (YYYY-MM-DD)",
  );
  check(
    typeof body.taxId === "string" && /^\d{3}-\d{2}-\d{4}$/.test(body.taxId),
    "taxId must be NNN-NN-NNNN",
  );
  check(
    body.phone == null || (typeof body.phone === "string" && /^\+[1-9]\d{6,14}$/.test(body.phone)),
    "phone must be an E.164 number such as +15555550142",
  );
  const address = body.address == null ? undefined : readAddress(body.address);
  check(
    address !== null,
    "address needs line1, city, postalCode and a two-letter country code (line2 and region are optional texts)",
  );
  if (problems.length > 0) return invalid(problems.join("; "));

  const person: Person = {
    personId: ledger.nextId("person", ledger.state.sequences),
    firstName: (body.firstName as string).trim(),
    lastName: (body.lastName as string).trim(),
    email: body.email as string,
    birthDate: body.birthDate as string,
    taxId: body.taxId as string,
    ...(typeof body.phone === "string" && { phone: body.phone }),
    ...(address && { address }),
    statusCode: 1,
    createdAt: timestamp(now),
  };
  ledger.state.persons.set(person.personId, person);
  ledger.state.revision++;
  return {
    status: 201,
    body: { personId: person.personId, statusCode: person.statusCode, createdAt: person.createdAt },
  };
}

/** `GET /core/v1/persons/{personId}`: 200 with the person, or 404. */
export function getPerson(ledger: Ledger, personId: string): LedgerResult {
  const person = ledger.state.persons.get(personId);
  return person ? { status: 200, body: personView(person) } : notFound("person", personId);
}

/** `POST /core/v1/accounts`: 201 with the account (an `openingDeposit` posts a credit), 400, 404 or 409 (person not active). */
export function openAccount(ledger: Ledger, body: unknown): LedgerResult {
  if (!isFields(body)) return invalid("the body must be a JSON object");
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
    const postedAt = timestamp(ledger.clock());
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

/**
 * `POST /core/v1/transfers` (`X-Idempotency-Key` optional): posts the debit and the credit together,
 * 201 `{ transferId, status: "POSTED", debitTxnId, creditTxnId, postedAt }`. A key already used gets
 * its first answer again and posts nothing. Errors: 400 bad body or amount, 404 unknown account,
 * 409 account closed or inactive, 422 currency mismatch or insufficient funds. Only a posted
 * transfer keeps its key, so a rejected one can be retried with the same key.
 */
export function transfer(ledger: Ledger, body: unknown, idempotencyKey?: string): LedgerResult {
  const { state } = ledger;
  if (idempotencyKey !== undefined) {
    if (idempotencyKey.length < 1 || idempotencyKey.length > 255)
      return invalid("X-Idempotency-Key must have 1 to 255 characters");
    const first = state.transfers.get(idempotencyKey);
    if (first) return { status: 201, body: { ...first } };
  }
  if (!isFields(body)) return invalid("the body must be a JSON object");
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

  const from = state.accounts.get(fromAccount as string);
  if (!from) return notFound("account", fromAccount as string);
  const to = state.accounts.get(toAccount as string);
  if (!to) return notFound("account", toAccount as string);
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

  // Everything is checked: from here on nothing can fail, so both legs post.
  const postedAt = timestamp(ledger.clock());
  const transferId = ledger.nextId("transfer", state.sequences);
  const debitTxnId = ledger.nextId("txn", state.sequences);
  const creditTxnId = ledger.nextId("txn", state.sequences);
  const text = typeof memo === "string" && memo !== "" ? memo : undefined;
  post(from, "D", amount, text ?? `Transfer to ${to.accountNumber}`, postedAt, debitTxnId);
  post(to, "C", amount, text ?? `Transfer from ${from.accountNumber}`, postedAt, creditTxnId);
  const answer: TransferAnswer = { transferId, status: "POSTED", debitTxnId, creditTxnId, postedAt };
  if (idempotencyKey !== undefined) state.transfers.set(idempotencyKey, answer);
  state.revision++;
  return { status: 201, body: { ...answer } };
}

function post(
  account: Account,
  drCr: "D" | "C",
  amount: Minor,
  description: string,
  postedAt: string,
  txnId: string,
) {
  const change = drCr === "C" ? amount : -amount;
  account.ledger += change;
  account.available += change;
  account.transactions.push({ txnId, postedAt, amount, drCr, description, runningBalance: account.ledger });
}

/**
 * The demo data set the samples assume (samples/README.md):
 *
 * | id           | what                                                                                  |
 * | ------------ | ------------------------------------------------------------------------------------- |
 * | `P000001`    | Ada Lovelace, active (statusCode 1), tax id 111-22-3333, with phone and address       |
 * | `P000002`    | Charles Babbage, closed (statusCode 9)                                                 |
 * | `1000000001` | Ada's checking account (DDA, USD), 2350.00: T000101–T000103 posted in January 2026     |
 * | `1000000002` | Ada's savings account (SAV, USD), 1000.00: opening deposit T000104 on 2026-01-16       |
 * | `1000000003` | Charles's checking account (DDA, USD), closed (statusCode 9), 0.00: T000090, T000091   |
 * | `1000000004` | Ada's euro savings account (SAV, EUR), 0.00: a transfer from a USD account mismatches  |
 *
 * New ids continue at P000042, 1000000042, TR00000017 and T000201, as the samples' mock files show.
 */
export function createDemoLedger(clock: () => Date = () => new Date()): Ledger {
  const ledger = createLedger({ clock });
  const { persons, accounts } = ledger.state;
  const ada: Person = {
    personId: "P000001",
    firstName: "Ada",
    lastName: "Lovelace",
    email: "ada.lovelace@example.com",
    birthDate: "1985-12-10",
    taxId: "111-22-3333",
    phone: "+15555550101",
    address: {
      line1: "12 Analytical Way",
      city: "Springfield",
      region: "IL",
      postalCode: "62701",
      country: "US",
    },
    statusCode: 1,
    createdAt: "2025-11-03T09:15:00Z",
  };
  const charles: Person = {
    personId: "P000002",
    firstName: "Charles",
    lastName: "Babbage",
    email: "charles.babbage@example.com",
    birthDate: "1979-12-26",
    taxId: "222-33-4444",
    phone: "+15555550102",
    statusCode: 9,
    createdAt: "2025-11-04T10:30:00Z",
  };
  for (const person of [ada, charles]) persons.set(person.personId, person);

  const open = (
    accountNumber: string,
    personId: string,
    productCode: ProductCode,
    currency: string,
  ): Account => {
    const account: Account = {
      accountNumber,
      personId,
      productCode,
      statusCode: 1,
      currency,
      ledger: 0n,
      available: 0n,
      transactions: [],
    };
    accounts.set(accountNumber, account);
    return account;
  };
  const checking = open("1000000001", "P000001", "DDA", "USD");
  post(checking, "C", 250000n, "Payroll ACME Corp", "2026-01-02T08:00:00Z", "T000101");
  post(checking, "D", 8490n, "Card purchase Corner Grocery", "2026-01-07T14:32:10Z", "T000102");
  post(checking, "D", 6510n, "Utility bill City Power", "2026-01-15T11:05:00Z", "T000103");
  const savings = open("1000000002", "P000001", "SAV", "USD");
  post(savings, "C", 100000n, "Opening deposit", "2026-01-16T09:00:00Z", "T000104");
  const closed = open("1000000003", "P000002", "DDA", "USD");
  post(closed, "C", 10000n, "Opening deposit", "2025-11-04T10:45:00Z", "T000090");
  post(closed, "D", 10000n, "Closing withdrawal", "2025-12-30T16:00:00Z", "T000091");
  closed.statusCode = 9;
  open("1000000004", "P000001", "SAV", "EUR");
  return ledger;
}

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
    transfers: [...transfers].map(([idempotencyKey, answer]) => ({ idempotencyKey, ...answer })),
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
  const sequenceFields = fields(root.sequences, "sequences");
  const sequences = { ...firstSequences };
  for (const kind of Object.keys(firstSequences) as IdKind[]) {
    const number = sequenceFields[kind];
    if (!Number.isSafeInteger(number) || (number as number) < 1)
      throw unreadable(`sequences.${kind} is not a whole number`);
    sequences[kind] = number as number;
  }
  const ledger = wrapState(
    { persons: new Map(), accounts: new Map(), transfers: new Map(), sequences, revision: 0 },
    options,
  );
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
    ledger.state.transfers.set(string(item, "idempotencyKey", at), answer);
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

function personView(person: Person): object {
  return {
    personId: person.personId,
    firstName: person.firstName,
    lastName: person.lastName,
    email: person.email,
    birthDate: person.birthDate,
    taxId: person.taxId,
    ...(person.phone !== undefined && { phone: person.phone }),
    ...(person.address && { address: { ...person.address } }),
    statusCode: person.statusCode,
    createdAt: person.createdAt,
  };
}

function accountView(account: Account): object {
  return {
    accountNumber: account.accountNumber,
    personId: account.personId,
    productCode: account.productCode,
    statusCode: account.statusCode,
    currency: account.currency,
    balances: { ledger: formatMoney(account.ledger), available: formatMoney(account.available) },
  };
}

function transactionView(txn: Transaction): object {
  return {
    txnId: txn.txnId,
    postedAt: txn.postedAt,
    amount: formatMoney(txn.amount),
    drCr: txn.drCr,
    description: txn.description,
    runningBalance: formatMoney(txn.runningBalance),
  };
}

/** An address with its required parts, copied field by field (nothing else of the value is kept), or `null`. */
function readAddress(value: unknown): Address | null {
  if (!isFields(value)) return null;
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

const amountRule = 'must be a decimal string above zero with at most two decimals, such as "150.00"';

function invalid(message: string): LedgerResult {
  return coreError(400, "INVALID_REQUEST", message);
}

function notFound(what: "person" | "account", id: string): LedgerResult {
  return coreError(404, "NOT_FOUND", `${what} ${JSON.stringify(id)} not found`);
}

function statusWord(code: StatusCode): string {
  return code === 1 ? "active" : code === 2 ? "inactive" : "closed";
}

/** An instant as the core writes it: ISO 8601 in UTC, whole seconds ("2026-01-20T16:45:03Z"). */
function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function isFields(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isText(value: unknown, maxLength: number): value is string {
  return typeof value === "string" && value.trim() !== "" && value.length <= maxLength;
}

function isCurrency(value: unknown): value is string {
  return typeof value === "string" && /^[A-Z]{3}$/.test(value);
}

/** A real calendar day written YYYY-MM-DD (no 2001-02-30). */
function isDate(value: unknown): value is string {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const day = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
}

function unreadable(reason: string): BassError {
  return new BassError("FILE_UNREADABLE", `not mock core data: ${reason}`);
}

function fields(value: unknown, at: string): Fields {
  if (!isFields(value)) throw unreadable(`${at} is not an object`);
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
