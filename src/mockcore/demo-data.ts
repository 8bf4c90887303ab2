import { post } from "./accounts.js";
import { type Account, createLedger, type Ledger, type Person, type ProductCode } from "./ledger.js";

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
