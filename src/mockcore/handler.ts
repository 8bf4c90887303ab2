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
 * The mock core's answer to a request (SPEC §9), no sockets: the route, the JSON body, the ledger
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
    const matching = routes.filter((route) => route.path.test(url.pathname));
    const route = matching.find((candidate) => candidate.method === request.method);
    if (!route) {
      if (matching.length === 0)
        return coreError(404, "NOT_FOUND", `no route ${request.method} ${url.pathname}`);
      const allow = matching.map((candidate) => candidate.method).join(", ");
      return {
        ...coreError(405, "METHOD_NOT_ALLOWED", `${url.pathname} answers ${allow}`),
        headers: { allow },
      };
    }
    let params: string[];
    try {
      params = (route.path.exec(url.pathname) ?? []).slice(1).map(decodeURIComponent);
    } catch {
      return coreError(400, "INVALID_REQUEST", "the path is not valid percent-encoding");
    }
    let parsed: unknown;
    if (route.method === "POST") {
      try {
        parsed = body.length === 0 ? undefined : JSON.parse(body.toString("utf8"));
      } catch {
        return coreError(400, "INVALID_REQUEST", "the body is not JSON");
      }
    }
    const key = request.headers["x-idempotency-key"];
    const revision = ledger.state.revision;
    // Synchronous from the balance check to the posting: no other request can run in between.
    const answer = route.run(ledger, params, {
      body: parsed,
      query: url.searchParams,
      idempotencyKey: Array.isArray(key) ? key.join(", ") : key,
    });
    if (saver && ledger.state.revision !== revision) {
      try {
        await saver.save();
      } catch (error) {
        return coreError(
          500,
          "INTERNAL",
          `the change is made but the data file could not be written: ${(error as Error).message}`,
        );
      }
    }
    return answer;
  };
}
