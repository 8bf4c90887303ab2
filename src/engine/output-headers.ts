/**
 * The most bytes a run's response headers may take, names, values and their separators counted: what
 * Node's HTTP parser (`maxHeaderSize`) accepts by default, so that a client built on it reads the answer.
 */
export const maxHeaderBytes = 16 * 1024;

/**
 * Framing and hop-by-hop headers (RFC 9110 §7.6.1, RFC 9112 §6): serve frames each answer itself, so an
 * output's own would contradict it (`Transfer-Encoding` beside the `Content-Length` serve sends).
 */
const bassHeaders = new Set([
  "transfer-encoding",
  "content-length",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
]);

// RFC 9110: a header name is a token; a value holds no line breaks and no NUL, and Node sends it as Latin-1.
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const headerValue = /^[\t\x20-\x7e\x80-\xff]*$/;

export type WireHeaders =
  | { problem: string }
  | { problem?: never; headers: [string, string][]; dropped: string[] };

/** The output's headers as they go on the wire, those that are bass's to set left out, or what is wrong. */
export function wireHeaders(headers: readonly [string, unknown][]): WireHeaders {
  const kept: [string, string][] = [];
  const dropped: string[] = [];
  let bytes = 0;
  for (const [name, value] of headers) {
    if (!headerName.test(name))
      return { problem: `output.headers has a name HTTP does not allow: ${JSON.stringify(name)}` };
    if (typeof value !== "string") return { problem: `output.headers.${name} must be a string` };
    if (!headerValue.test(value))
      return {
        problem: `output.headers.${name} holds characters HTTP does not allow (line breaks, or beyond Latin-1)`,
      };
    const lower = name.toLowerCase();
    if (bassHeaders.has(lower) || lower.startsWith("proxy-")) {
      dropped.push(name);
      continue;
    }
    // `name: value` and its line break.
    bytes += name.length + value.length + 4;
    if (bytes > maxHeaderBytes)
      return {
        problem: `output.headers take more than ${maxHeaderBytes} bytes (16 KiB), which HTTP clients refuse: send less in headers, more in the payload`,
      };
    kept.push([name, value]);
  }
  return { headers: kept, dropped };
}
