import type { Account, Person, Transaction } from "./ledger.js";
import { formatMoney } from "./money.js";

/** A person as the core's JSON shows it. */
export function personView(person: Person): object {
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

/** An account as the core's JSON shows it: its balances as decimal strings, without its transactions. */
export function accountView(account: Account): object {
  return {
    accountNumber: account.accountNumber,
    personId: account.personId,
    productCode: account.productCode,
    statusCode: account.statusCode,
    currency: account.currency,
    balances: { ledger: formatMoney(account.ledger), available: formatMoney(account.available) },
  };
}

/** A transaction as the core's JSON shows it, money as decimal strings. */
export function transactionView(txn: Transaction): object {
  return {
    txnId: txn.txnId,
    postedAt: txn.postedAt,
    amount: formatMoney(txn.amount),
    drCr: txn.drCr,
    description: txn.description,
    runningBalance: formatMoney(txn.runningBalance),
  };
}
