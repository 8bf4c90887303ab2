const origin = "http://bass.invalid";

/** What serve reads of a request target: its path as the URL parser leaves it, and its query. */
export interface RequestTarget {
  pathname: string;
  /** `?` and the query, or "" for none (also for an empty one), as `URL#search`. */
  search: string;
  readonly searchParams: URLSearchParams;
}

// A target the URL parser would leave as it is: a path of characters it neither encodes nor reads as
// something else (no dot segment, no `%2e`, no backslash) and a query of characters it does not encode.
const plainTarget = /^(\/[A-Za-z0-9\-_~!$&()*+,;=:@/%]*)(?:\?([A-Za-z0-9\-._~!$&()*+,;=:@/?%]*))?$/;

/** A plain target, read without the URL parser: most requests. Its query's parser is made only when asked for. */
class PlainTarget implements RequestTarget {
  #searchParams: URLSearchParams | undefined;

  constructor(
    readonly pathname: string,
    readonly search: string,
  ) {}

  get searchParams(): URLSearchParams {
    this.#searchParams ??= new URLSearchParams(this.search);
    return this.#searchParams;
  }
}

/**
 * A request target (RFC 9112 §3.2), or undefined when it is none. A path is read as a path, so
 * `//host/_bass/runs` is the path it says and never a host and `/_bass/runs`; an absolute URL is read as
 * itself. A plain path (and query) is taken as it is, which is what the URL parser would make of it (a
 * test compares the two); anything else goes through the parser.
 */
export function parseRequestTarget(target: string): RequestTarget | undefined {
  const plain = plainTarget.exec(target);
  if (plain && !/%2e/i.test(plain[1] as string)) {
    const query = plain[2] ?? "";
    return new PlainTarget(plain[1] as string, query === "" ? "" : `?${query}`);
  }
  try {
    return target.startsWith("/") ? new URL(origin + target) : new URL(target, origin);
  } catch {
    return undefined;
  }
}
