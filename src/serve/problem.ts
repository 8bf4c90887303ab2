import { STATUS_CODES } from "node:http";
import { createScrubber } from "../engine/masks.js";
import { isBassError } from "../errors.js";

/** One finding behind a problem, e.g. a request_schema error at a JSON pointer into the body. */
export interface ProblemError {
  pointer?: string;
  message: string;
}

/** RFC 9457 problem details, the body of every error serve answers without running an integration. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: ProblemError[];
}

/** A response as serve sends it; header names are lower case. */
export interface ServeResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string;
}

// Node's table still has the names RFC 9110 replaced for these two.
const renamedPhrases: Readonly<Record<number, string>> = {
  413: "Content Too Large",
  422: "Unprocessable Content",
};

/** Whether HTTP sends an answer of this status without a body (RFC 9110 §6.4.1): 204 and 304. */
export function hasNoBody(status: number): boolean {
  return status === 204 || status === 304;
}

/** The reason phrase of a status; an unregistered one is named by its class, as RFC 9110 §15 reads it. */
export function reasonPhrase(status: number): string {
  return renamedPhrases[status] ?? STATUS_CODES[status] ?? (status >= 500 ? "Server Error" : "Client Error");
}

/**
 * A problem of type `about:blank`, titled with the status's reason phrase. `detail` is written by serve,
 * never copied from a request body: a body can hold secrets, and the problem is logged and replayed.
 */
export function createProblem(status: number, detail: string, errors?: ProblemError[]): Problem {
  const problem: Problem = { type: "about:blank", title: reasonPhrase(status), status, detail };
  if (errors !== undefined && errors.length > 0) problem.errors = errors;
  return problem;
}

/** The response of a problem; `extraHeaders` (Allow, Retry-After, WWW-Authenticate …) cannot replace its content type. */
export function problemResponse(problem: Problem, extraHeaders: Record<string, string> = {}): ServeResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extraHeaders)) headers[name.toLowerCase()] = value;
  headers["content-type"] = "application/problem+json";
  return { status: problem.status, headers, body: JSON.stringify(problem) };
}

/** Where serve reports an error it did not expect; it gets the error as thrown, unmasked. */
export type LogError = (error: unknown) => void;

/**
 * The one answer to an error serve did not expect: `logError` sees it first, so none is swallowed, and the
 * client gets a 500 that tells nothing of it (a stack can quote a secret or a path).
 */
export function problemFor(error: unknown, logError: LogError): ServeResponse {
  logError(error);
  return problemResponse(createProblem(500, "bass could not answer this request; the server log tells why"));
}

/**
 * A LogError writing to `write`, each secret masked: a BassError as its code and message (it says what went
 * wrong), any other error with its stack (it is bass's own fault, and the stack shows where).
 */
export function createErrorLog(write: (text: string) => void, secrets: () => Iterable<string>): LogError {
  return (error) => {
    const text = isBassError(error)
      ? `${error.code}: ${error.message}`
      : error instanceof Error
        ? (error.stack ?? String(error))
        : String(error);
    write(`bass serve: unexpected error: ${createScrubber(secrets())(text)}\n`);
  };
}
