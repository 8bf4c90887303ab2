import type { IncomingHttpHeaders } from "node:http";
import { getAccount, listTransactions, openAccount } from "./accounts.js";
import { coreError } from "./core-error.js";
import type { DataFileSaver } from "./data-file.js";
import type { Ledger, LedgerResult } from "./ledger.js";
import { createPerson, getPerson } from "./persons.js";
import { transfer } from "./transfers.js";

/** An answer to send: the ledger's, with headers of its own where it needs them (405's `allow`). */
export interface MockcoreAnswer extends LedgerResult {
  headers?: Record<string, string>;
}

/** What the handler reads of a request; node:http's IncomingMessage has it. */
export interface MockcoreRequest {
  method?: string | undefined;
  url?: string | undefined;
  headers: IncomingHttpHeaders;
}

export interface CreateMockcoreHandlerOptions {
  ledger: Ledger;
  /** Writes the data file after each change, before the change is answered. */
  saver?: DataFileSaver | undefined;
  /** The body limit the server read with, for the 413's message. */
  bodyLimitBytes: number;
}

interface RouteInput {
  body: unknown;
  query: URLSearchParams;
  idempotencyKey: string | undefined;
}

interface Route {
  method: "GET" | "POST";
  path: RegExp;
  run(ledger: Ledger, params: string[], input: RouteInput): LedgerResult;
}

const routes: Route[] = [
  { method: "POST", path: /^\/core\/v1\/persons$/, run: (ledger, _, { body }) => createPerson(ledger, body) },
  {
    method: "GET",
    path: /^\/core\/v1\/persons\/([^/]+)$/,
    run: (ledger, [id = ""]) => getPerson(ledger, id),
  },
  { method: "POST", path: /^\/core\/v1\/accounts$/, run: (ledger, _, { body }) => openAccount(ledger, body) },
  {
    method: "GET",
    path: /^\/core\/v1\/accounts\/([^/]+)$/,
    run: (ledger, [n = ""]) => getAccount(ledger, n),
  },
  {
    method: "GET",
    path: /^\/core\/v1\/accounts\/([^/]+)\/transactions$/,
    run: (ledger, [n = ""], { query }) =>
      listTransactions(ledger, n, {
        fromDate: query.get("fromDate") ?? undefined,
        toDate: query.get("toDate") ?? undefined,
        limit: query.get("limit") ?? undefined,
        offset: query.get("offset") ?? undefined,
      }),
  },
  {
    method: "POST",
    path: /^\/core\/v1\/transfers$/,
    run: (ledger, _, { body, idempotencyKey }) => transfer(ledger, body, idempotencyKey),
  },
];

/**
 * The mock core's answer to a request (docs/mockcore.md#the-mock-cores-api), no sockets: the route, the JSON body, the ledger
 * operation and the data file write. `body` is `undefined` when it passed the limit (413).
 */
export function createMockcoreHandler(
  options: CreateMockcoreHandlerOptions,
): (request: MockcoreRequest, body: Buffer | undefined) => Promise<MockcoreAnswer> {
  const { ledger, saver, bodyLimitBytes } = options;
  return async (request, body) => {
    if (body === undefined)
      return coreError(413, "PAYLOAD_TOO_LARGE", `the body is larger than ${bodyLimitBytes} bytes`);
    const url = new URL(request.url ?? "/", "http://mockcore");
    const matched = matchRoute(request.method, url.pathname);
    if (!matched.ok) return matched.answer;
    const { route, params } = matched;
    const parsed = route.method === "POST" ? parseJsonBody(body) : { ok: true as const, value: undefined };
    if (!parsed.ok) return parsed.answer;
    const key = request.headers["x-idempotency-key"];
    const revision = ledger.state.revision;
    // Synchronous from the balance check to the posting: no other request can run in between.
    const answer = route.run(ledger, params, {
      body: parsed.value,
      query: url.searchParams,
      idempotencyKey: Array.isArray(key) ? key.join(", ") : key,
    });
    const changed = ledger.state.revision !== revision;
    return (changed && saver && (await saveFailure(saver))) || answer;
  };
}

/** The 500 to answer when the data file could not be written after a change, or undefined once it is. */
async function saveFailure(saver: { save(): Promise<void> }): Promise<MockcoreAnswer | undefined> {
  try {
    await saver.save();
    return undefined;
  } catch (error) {
    const why = (error as Error).message;
    return coreError(500, "INTERNAL", `the change is made but the data file could not be written: ${why}`);
  }
}

/** What a check found: the value to go on with, or the answer that ends the request. */
type Checked<T> = ({ ok: true } & T) | { ok: false; answer: MockcoreAnswer };

/** The route of `method` and `pathname` and its decoded params, or the 404, 405 or 400 to answer. */
function matchRoute(
  method: string | undefined,
  pathname: string,
): Checked<{ route: Route; params: string[] }> {
  const matching = routes.filter((route) => route.path.test(pathname));
  const route = matching.find((candidate) => candidate.method === method);
  if (!route) {
    if (matching.length === 0)
      return { ok: false, answer: coreError(404, "NOT_FOUND", `no route ${method} ${pathname}`) };
    const allow = matching.map((candidate) => candidate.method).join(", ");
    const answer = coreError(405, "METHOD_NOT_ALLOWED", `${pathname} answers ${allow}`);
    return { ok: false, answer: { ...answer, headers: { allow } } };
  }
  try {
    return { ok: true, route, params: (route.path.exec(pathname) ?? []).slice(1).map(decodeURIComponent) };
  } catch {
    return { ok: false, answer: coreError(400, "INVALID_REQUEST", "the path is not valid percent-encoding") };
  }
}

/** The JSON of a POST's body (undefined when empty), or the 400 to answer. */
function parseJsonBody(body: Buffer): Checked<{ value: unknown }> {
  try {
    return { ok: true, value: body.length === 0 ? undefined : JSON.parse(body.toString("utf8")) };
  } catch {
    return { ok: false, answer: coreError(400, "INVALID_REQUEST", "the body is not JSON") };
  }
}
