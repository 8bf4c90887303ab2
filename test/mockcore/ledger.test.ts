import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { isBassError } from "../../src/errors.js";
import { getAccount, listTransactions, openAccount } from "../../src/mockcore/accounts.js";
import { createDemoLedger } from "../../src/mockcore/demo-data.js";
import { createLedger, type Ledger } from "../../src/mockcore/ledger.js";
import { deserializeLedger, serializeLedger } from "../../src/mockcore/ledger-file.js";
import { formatMoney } from "../../src/mockcore/money.js";
import { createPerson, getPerson } from "../../src/mockcore/persons.js";
import { transfer } from "../../src/mockcore/transfers.js";

const now = "2026-01-20T16:45:03Z";
const clock = () => new Date(now);

/** The core's answer in a sample mock file (samples/mocks/<name>.yaml), by formula variable. */
function sampleAnswer(name: string, variable: string): unknown {
  const file = join(import.meta.dirname, "../../samples/mocks", `${name}.yaml`);
  return (parse(readFileSync(file, "utf8")) as Record<string, { payload: unknown }>)[variable]?.payload;
}

function balanceOf(ledger: Ledger, accountNumber: string): string {
  const account = ledger.state.accounts.get(accountNumber);
  if (!account) throw new Error(`no account ${accountNumber}`);
  return formatMoney(account.ledger);
}

const grace = {
  firstName: "Grace",
  lastName: "Hopper",
  email: "grace.hopper@example.com",
  birthDate: "1986-12-09",
  taxId: "123-45-6789",
  phone: "+15555550142",
  address: {
    line1: "42 Compiler Lane",
    line2: "Apt 3",
    city: "Arlington",
    region: "VA",
    postalCode: "22201",
    country: "US",
  },
};

const sampleTransfer = {
  fromAccount: "1000000001",
  toAccount: "1000000002",
  amount: "150.00",
  currency: "USD",
  memo: "Monthly savings",
};

describe("the demo data", () => {
  it("holds Ada Lovelace as the customers.retrieve mock shows her", () => {
    expect(getPerson(createDemoLedger(clock), "P000001")).toEqual({
      status: 200,
      body: sampleAnswer("customers.retrieve", "core"),
    });
  });

  it("holds account 1000000001 and its January transactions as the monetary-transactions.retrieve mock shows them", () => {
    const ledger = createDemoLedger(clock);
    expect(getAccount(ledger, "1000000001").body).toEqual(
      sampleAnswer("monetary-transactions.retrieve", "account"),
    );
    const query = { fromDate: "2026-01-01", toDate: "2026-01-31", limit: "20", offset: "0" };
    expect(listTransactions(ledger, "1000000001", query).body).toEqual(
      sampleAnswer("monetary-transactions.retrieve", "txns"),
    );
  });

  it.each([
    ["1000000001", "P000001", "DDA", 1, "USD", "2350.00"],
    ["1000000002", "P000001", "SAV", 1, "USD", "1000.00"],
    ["1000000003", "P000002", "DDA", 9, "USD", "0.00"],
    ["1000000004", "P000001", "SAV", 1, "EUR", "0.00"],
  ])(
    "holds account %s of %s (%s, status %i, %s %s)",
    (accountNumber, personId, productCode, statusCode, currency, balance) => {
      expect(getAccount(createDemoLedger(clock), accountNumber)).toEqual({
        status: 200,
        body: {
          accountNumber,
          personId,
          productCode,
          statusCode,
          currency,
          balances: { ledger: balance, available: balance },
        },
      });
    },
  );

  it("holds a second person, closed", () => {
    expect(getPerson(createDemoLedger(clock), "P000002").body).toMatchObject({
      firstName: "Charles",
      lastName: "Babbage",
      statusCode: 9,
    });
  });

  it("has running balances that add up to each account's balance", () => {
    for (const account of createDemoLedger(clock).state.accounts.values()) {
      let balance = 0n;
      for (const txn of account.transactions) {
        balance += txn.drCr === "C" ? txn.amount : -txn.amount;
        expect(txn.runningBalance).toBe(balance);
      }
      expect(account.ledger).toBe(balance);
      expect(account.available).toBe(balance);
    }
  });
});

describe("createPerson", () => {
  it("creates an active person with the next free id, as the customers.create mock shows", () => {
    const ledger = createDemoLedger(() => new Date("2026-01-05T10:00:00Z"));
    expect(createPerson(ledger, grace)).toEqual({
      status: 201,
      body: sampleAnswer("customers.create", "core"),
    });
    expect(getPerson(ledger, "P000042").body).toEqual({
      personId: "P000042",
      ...grace,
      statusCode: 1,
      createdAt: "2026-01-05T10:00:00Z",
    });
    expect(createPerson(ledger, grace).body).toMatchObject({ personId: "P000043" });
  });

  it("keeps phone and address optional, and drops what an address should not hold", () => {
    const ledger = createDemoLedger(clock);
    const { phone: _, address: __, ...required } = grace;
    createPerson(ledger, required);
    createPerson(ledger, {
      ...required,
      address: { line1: "1 Main St", city: "X", postalCode: "1", country: "US", extra: 1 },
    });
    expect(getPerson(ledger, "P000042").body).not.toHaveProperty("phone");
    expect(getPerson(ledger, "P000042").body).not.toHaveProperty("address");
    expect(getPerson(ledger, "P000043").body).toMatchObject({
      address: { line1: "1 Main St", city: "X", postalCode: "1", country: "US" },
    });
    expect((getPerson(ledger, "P000043").body as { address: object }).address).not.toHaveProperty("extra");
  });

  it.each<[string, unknown, string]>([
    ["a body that is not an object", [grace], "the body must be a JSON object"],
    ["no body", undefined, "the body must be a JSON object"],
    ["no firstName", { ...grace, firstName: undefined }, "firstName is required"],
    ["a blank lastName", { ...grace, lastName: "  " }, "lastName is required"],
    ["a bad email", { ...grace, email: "grace@" }, "email must be an e-mail address"],
    ["a future birthDate", { ...grace, birthDate: "2030-01-01" }, "birthDate must be a past date"],
    ["a day that does not exist", { ...grace, birthDate: "2001-02-30" }, "birthDate must be a past date"],
    ["a bad taxId", { ...grace, taxId: "123456789" }, "taxId must be NNN-NN-NNNN"],
    ["a bad phone", { ...grace, phone: "555-0142" }, "phone must be an E.164 number"],
    ["an address without a city", { ...grace, address: { ...grace.address, city: "" } }, "address needs"],
    ["a lower-case country", { ...grace, address: { ...grace.address, country: "us" } }, "address needs"],
  ])("answers 400 INVALID_REQUEST to %s", (_, body, message) => {
    const ledger = createDemoLedger(clock);
    const result = createPerson(ledger, body);
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ errorCode: "INVALID_REQUEST" });
    expect((result.body as { errorMessage: string }).errorMessage).toContain(message);
    expect(ledger.state.persons.size).toBe(2);
  });

  it("names every bad field at once and never echoes the tax id", () => {
    const result = createPerson(createDemoLedger(clock), {
      ...grace,
      firstName: "",
      email: "x",
      taxId: "12-345",
    });
    expect(result.body).toEqual({
      errorCode: "INVALID_REQUEST",
      errorMessage:
        "firstName is required (at most 100 characters); email must be an e-mail address; taxId must be NNN-NN-NNNN",
    });
  });
});

describe("getPerson and getAccount", () => {
  it.each([
    ["getPerson", () => getPerson(createDemoLedger(clock), "P000099"), 'person "P000099" not found'],
    ["getAccount", () => getAccount(createDemoLedger(clock), "1000000099"), 'account "1000000099" not found'],
  ])("%s answers 404 NOT_FOUND to an unknown id", (_, call, message) => {
    expect(call()).toEqual({ status: 404, body: { errorCode: "NOT_FOUND", errorMessage: message } });
  });
});

describe("openAccount", () => {
  it("opens an account funded by its opening deposit, as the deposit-accounts.create mock shows", () => {
    const ledger = createDemoLedger(clock);
    const body = { personId: "P000001", productCode: "SAV", currency: "USD", openingDeposit: "250.00" };
    expect(openAccount(ledger, body)).toEqual({
      status: 201,
      body: sampleAnswer("deposit-accounts.create", "core"),
    });
    expect(listTransactions(ledger, "1000000042", {}).body).toEqual({
      items: [
        {
          txnId: "T000201",
          postedAt: now,
          amount: "250.00",
          drCr: "C",
          description: "Opening deposit",
          runningBalance: "250.00",
        },
      ],
      total: 1,
    });
  });

  it("opens an empty account without an opening deposit", () => {
    const ledger = createDemoLedger(clock);
    expect(
      openAccount(ledger, { personId: "P000001", productCode: "DDA", currency: "EUR" }).body,
    ).toMatchObject({
      accountNumber: "1000000042",
      balances: { ledger: "0.00", available: "0.00" },
    });
    expect(listTransactions(ledger, "1000000042", {}).body).toEqual({ items: [], total: 0 });
  });

  it.each<[string, object, number, string]>([
    ["a missing personId", { productCode: "DDA", currency: "USD" }, 400, "INVALID_REQUEST"],
    [
      "an unknown productCode",
      { personId: "P000001", productCode: "CHK", currency: "USD" },
      400,
      "INVALID_REQUEST",
    ],
    [
      "a lower-case currency",
      { personId: "P000001", productCode: "DDA", currency: "usd" },
      400,
      "INVALID_REQUEST",
    ],
    [
      "a zero deposit",
      { personId: "P000001", productCode: "DDA", currency: "USD", openingDeposit: "0.00" },
      400,
      "INVALID_REQUEST",
    ],
    [
      "a deposit as a number",
      { personId: "P000001", productCode: "DDA", currency: "USD", openingDeposit: 250 },
      400,
      "INVALID_REQUEST",
    ],
    ["an unknown person", { personId: "P000099", productCode: "DDA", currency: "USD" }, 404, "NOT_FOUND"],
    [
      "a closed person",
      { personId: "P000002", productCode: "DDA", currency: "USD" },
      409,
      "PERSON_NOT_ACTIVE",
    ],
  ])("answers %s with %i %s and opens nothing", (_, body, status, errorCode) => {
    const ledger = createDemoLedger(clock);
    const result = openAccount(ledger, body);
    expect(result.status).toBe(status);
    expect(result.body).toMatchObject({ errorCode });
    expect(ledger.state.accounts.size).toBe(4);
    expect(ledger.state.revision).toBe(0);
  });
});

describe("listTransactions", () => {
  const ids = (query: Parameters<typeof listTransactions>[2]) => {
    const body = listTransactions(createDemoLedger(clock), "1000000001", query).body as {
      items: { txnId: string }[];
      total: number;
    };
    return { ids: body.items.map((item) => item.txnId), total: body.total };
  };

  it.each<[string, Parameters<typeof listTransactions>[2], string[], number]>([
    ["every transaction, oldest first", {}, ["T000101", "T000102", "T000103"], 3],
    ["the first page", { limit: "2" }, ["T000101", "T000102"], 3],
    ["the second page", { limit: "2", offset: "2" }, ["T000103"], 3],
    ["a page past the end", { limit: "2", offset: "5" }, [], 3],
    ["from a day on", { fromDate: "2026-01-07" }, ["T000102", "T000103"], 2],
    ["up to a day, inclusive", { toDate: "2026-01-07" }, ["T000101", "T000102"], 2],
    [
      "a range with a page",
      { fromDate: "2026-01-03", toDate: "2026-01-31", limit: "1", offset: "1" },
      ["T000103"],
      2,
    ],
    ["a range with nothing in it", { fromDate: "2025-01-01", toDate: "2025-12-31" }, [], 0],
  ])("lists %s", (_, query, expected, total) => {
    expect(ids(query)).toEqual({ ids: expected, total });
  });

  it.each<[string, Parameters<typeof listTransactions>[2]]>([
    ["a limit of 0", { limit: "0" }],
    ["a limit above 200", { limit: "201" }],
    ["a limit that is not a number", { limit: "ten" }],
    ["a negative offset", { offset: "-1" }],
    ["a fromDate that is no day", { fromDate: "2026-13-01" }],
    ["a toDate in another form", { toDate: "01/31/2026" }],
  ])("answers 400 INVALID_REQUEST to %s", (_, query) => {
    const result = listTransactions(createDemoLedger(clock), "1000000001", query);
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ errorCode: "INVALID_REQUEST" });
  });

  it("answers 404 NOT_FOUND to an unknown account", () => {
    expect(listTransactions(createDemoLedger(clock), "1000000099", {}).status).toBe(404);
  });

  it("lists the history of a closed account", () => {
    expect(listTransactions(createDemoLedger(clock), "1000000003", {}).body).toMatchObject({ total: 2 });
  });
});

describe("transfer", () => {
  it("posts both legs, as the monetary-internal-transfers.create mock shows", () => {
    const ledger = createDemoLedger(clock);
    expect(transfer(ledger, sampleTransfer, "key-1")).toEqual({
      status: 201,
      body: sampleAnswer("monetary-internal-transfers.create", "core"),
    });
    expect(balanceOf(ledger, "1000000001")).toBe("2200.00");
    expect(balanceOf(ledger, "1000000002")).toBe("1150.00");
    const last = (n: string) => (listTransactions(ledger, n, {}).body as { items: unknown[] }).items.at(-1);
    expect(last("1000000001")).toEqual({
      txnId: "T000201",
      postedAt: now,
      amount: "150.00",
      drCr: "D",
      description: "Monthly savings",
      runningBalance: "2200.00",
    });
    expect(last("1000000002")).toEqual({
      txnId: "T000202",
      postedAt: now,
      amount: "150.00",
      drCr: "C",
      description: "Monthly savings",
      runningBalance: "1150.00",
    });
  });

  it("describes the legs by the other account when there is no memo", () => {
    const ledger = createDemoLedger(clock);
    const { memo: _, ...body } = sampleTransfer;
    transfer(ledger, body);
    expect(ledger.state.accounts.get("1000000001")?.transactions.at(-1)?.description).toBe(
      "Transfer to 1000000002",
    );
    expect(ledger.state.accounts.get("1000000002")?.transactions.at(-1)?.description).toBe(
      "Transfer from 1000000001",
    );
  });

  it("moves the whole available balance, down to 0.00", () => {
    const ledger = createDemoLedger(clock);
    expect(transfer(ledger, { ...sampleTransfer, amount: "2350" }).status).toBe(201);
    expect(balanceOf(ledger, "1000000001")).toBe("0.00");
  });

  it.each<[string, object, number, string]>([
    ["an amount of zero", { amount: "0.00" }, 400, "INVALID_REQUEST"],
    ["a negative amount", { amount: "-1.00" }, 400, "INVALID_REQUEST"],
    ["three decimals", { amount: "1.234" }, 400, "INVALID_REQUEST"],
    ["an amount as a JSON number", { amount: 150 }, 400, "INVALID_REQUEST"],
    ["an exponent", { amount: "1e3" }, 400, "INVALID_REQUEST"],
    ["an empty amount", { amount: "" }, 400, "INVALID_REQUEST"],
    ["more than 15 integer digits", { amount: "1000000000000000.00" }, 400, "INVALID_REQUEST"],
    ["no toAccount", { toAccount: undefined }, 400, "INVALID_REQUEST"],
    ["the same account twice", { toAccount: "1000000001" }, 400, "INVALID_REQUEST"],
    ["a bad currency", { currency: "dollars" }, 400, "INVALID_REQUEST"],
    ["a memo of 141 characters", { memo: "m".repeat(141) }, 400, "INVALID_REQUEST"],
    ["an unknown fromAccount", { fromAccount: "1000000099" }, 404, "NOT_FOUND"],
    ["an unknown toAccount", { toAccount: "1000000099" }, 404, "NOT_FOUND"],
    ["a closed toAccount", { toAccount: "1000000003" }, 409, "ACCOUNT_CLOSED"],
    ["a closed fromAccount", { fromAccount: "1000000003", toAccount: "1000000001" }, 409, "ACCOUNT_CLOSED"],
    ["an account in another currency", { toAccount: "1000000004" }, 422, "CURRENCY_MISMATCH"],
    ["a transfer in another currency", { currency: "EUR" }, 422, "CURRENCY_MISMATCH"],
    ["more than the available balance", { amount: "2350.01" }, 422, "INSUFFICIENT_FUNDS"],
  ])("answers %s with %i %s and posts nothing", (_, change, status, errorCode) => {
    const ledger = createDemoLedger(clock);
    const before = serializeLedger(ledger);
    const result = transfer(ledger, { ...sampleTransfer, ...change }, "key-1");
    expect(result.status).toBe(status);
    expect(result.body).toMatchObject({ errorCode, errorMessage: expect.any(String) });
    expect(serializeLedger(ledger)).toBe(before);
    expect(ledger.state.revision).toBe(0);
  });

  it.each([
    ["an empty key", ""],
    ["a key of 256 characters", "k".repeat(256)],
  ])("answers 400 to %s", (_, key) => {
    expect(transfer(createDemoLedger(clock), sampleTransfer, key).status).toBe(400);
  });

  it("answers a repeated key with the first answer and posts nothing more, and refuses it for another transfer", () => {
    const ledger = createDemoLedger(clock);
    const first = transfer(ledger, sampleTransfer, "key-1");
    const state = serializeLedger(ledger);
    expect(transfer(ledger, sampleTransfer, "key-1")).toEqual(first);
    expect(transfer(ledger, { ...sampleTransfer, amount: "1.00" }, "key-1")).toMatchObject({
      status: 422,
      body: { errorCode: "IDEMPOTENCY_KEY_REUSED" },
    });
    // Also after the data file was written and read back.
    expect(
      transfer(deserializeLedger(state, { clock }), { ...sampleTransfer, amount: "1.00" }, "key-1"),
    ).toMatchObject({
      status: 422,
    });
    expect(transfer(deserializeLedger(state, { clock }), sampleTransfer, "key-1")).toEqual(first);
    expect(serializeLedger(ledger)).toBe(state);
    expect(transfer(ledger, sampleTransfer, "key-2").body).toMatchObject({ transferId: "TR00000018" });
    expect(balanceOf(ledger, "1000000001")).toBe("2050.00");
  });

  it("keeps no key of a rejected transfer, so the same key posts once funds are there", () => {
    const ledger = createDemoLedger(clock);
    const big = { ...sampleTransfer, amount: "3000.00" };
    expect(transfer(ledger, big, "key-1").status).toBe(422);
    transfer(ledger, {
      ...sampleTransfer,
      fromAccount: "1000000002",
      toAccount: "1000000001",
      amount: "1000.00",
    });
    expect(transfer(ledger, big, "key-1").status).toBe(201);
    expect(balanceOf(ledger, "1000000001")).toBe("350.00");
  });
});

describe("ids and clock", () => {
  it("takes ids from the generator it is given", () => {
    let n = 0;
    const ledger = createLedger({ clock, nextId: (kind) => `${kind}-${++n}` });
    expect(createPerson(ledger, grace).body).toMatchObject({ personId: "person-1", createdAt: now });
    expect(
      openAccount(ledger, { personId: "person-1", productCode: "DDA", currency: "USD", openingDeposit: "5" })
        .body,
    ).toMatchObject({
      accountNumber: "account-2",
    });
  });

  it("starts an empty ledger at the first free numbers", () => {
    const ledger = createLedger({ clock });
    expect(createPerson(ledger, grace).body).toMatchObject({ personId: "P000042" });
  });
});

describe("serializeLedger and deserializeLedger", () => {
  it("read back the same ledger, which goes on with the next ids", () => {
    const ledger = createDemoLedger(clock);
    createPerson(ledger, grace);
    openAccount(ledger, {
      personId: "P000042",
      productCode: "DDA",
      currency: "USD",
      openingDeposit: "10.50",
    });
    transfer(ledger, sampleTransfer, "key-1");
    const text = serializeLedger(ledger);
    const copy = deserializeLedger(text, { clock });
    expect(serializeLedger(copy)).toBe(text);
    expect(transfer(copy, sampleTransfer, "key-1")).toEqual(transfer(ledger, sampleTransfer, "key-1"));
    expect(createPerson(copy, grace).body).toMatchObject({ personId: "P000043" });
    expect(transfer(copy, sampleTransfer).body).toMatchObject({
      transferId: "TR00000018",
      debitTxnId: "T000204",
    });
  });

  it("write money as decimal strings", () => {
    const data = JSON.parse(serializeLedger(createDemoLedger(clock)));
    expect(data.accounts[0].balances).toEqual({ ledger: "2350.00", available: "2350.00" });
    expect(data.accounts[0].transactions[1]).toMatchObject({ amount: "84.90", runningBalance: "2415.10" });
  });

  const demo = () => JSON.parse(serializeLedger(createDemoLedger(clock)));
  it.each<[string, () => string, string]>([
    ["text that is not JSON", () => "{", "it is not JSON"],
    ["another format", () => JSON.stringify({ format: "other", version: 1 }), "version 1"],
    ["no persons", () => JSON.stringify({ ...demo(), persons: {} }), "persons is not a list"],
    [
      "a negative balance",
      () => {
        const data = demo();
        data.accounts[0].balances.ledger = "-1.00";
        return JSON.stringify(data);
      },
      "accounts[0].balances.ledger is not an amount",
    ],
    [
      "an unknown status",
      () => {
        const data = demo();
        data.persons[0].statusCode = 3;
        return JSON.stringify(data);
      },
      "persons[0].statusCode is not 1, 2 or 9",
    ],
  ])("refuse %s with FILE_UNREADABLE", (_, text, message) => {
    let error: unknown;
    try {
      deserializeLedger(text());
    } catch (caught) {
      error = caught;
    }
    expect(isBassError(error) && error.code).toBe("FILE_UNREADABLE");
    expect((error as Error).message).toContain(message);
  });
});
