import { isObject } from "../objects.js";
import { invalid, notFound } from "./core-error.js";
import { isDate, isText, readAddress } from "./field-checks.js";
import { coreTimestamp, type Ledger, type LedgerResult, type Person } from "./ledger.js";
import { personView } from "./views.js";

/** `POST /core/v1/persons`: 201 `{ personId, statusCode, createdAt }`, or 400 naming every bad field. */
export function createPerson(ledger: Ledger, body: unknown): LedgerResult {
  if (!isObject(body)) return invalid("the body must be a JSON object");
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
    isDate(body.birthDate) && body.birthDate < coreTimestamp(now),
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
    createdAt: coreTimestamp(now),
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
