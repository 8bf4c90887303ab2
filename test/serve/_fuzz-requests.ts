import fc from "fast-check";
import type { ServeRequest } from "../../src/serve/context.js";

/** The body limit of the fuzzed project (the SPEC §3 default). */
export const bodyLimit = 1_048_576;

/**
 * The cell every fuzzed endpoint answers with: what the run saw. `plain` is false when any object the run
 * can reach from `input` has a prototype other than Object's, Array's or none (a body that swapped one);
 * `prototype_names` counts Object.prototype's own names, which a polluting request would raise.
 */
const reportCell = `const plain = (value, depth) => {
  if (value === null || typeof value !== 'object') return true
  if (depth > 80) return false
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) return false
  return Object.keys(value).every((key) => plain(value[key], depth + 1))
}
output.payload = {
  plain: plain(input, 0),
  prototype_names: Object.getOwnPropertyNames(Object.prototype).length,
  polluted: ({}).polluted === undefined ? null : 'polluted',
  payload: input.payload,
  params: input.params,
  path: input.path,
}`;

const hook = `on_success_hook: |\n${reportCell.replace(/^/gm, "  ")}\n`;

/** A project whose endpoints echo what their run saw: `echo` checks a request_schema, `raw` takes any body. */
export const fuzzProject: Record<string, string> = {
  "bass.config.yaml": "history:\n  max_runs: 200\n",
  "integrations/echo.yaml": `name: echo
endpoints:
  - { method: POST, path: /echo }
  - { method: PUT, path: "/echo/{id}" }
  - { method: PATCH, path: "/echo/{id}" }
request_schema:
  type: object
  properties:
    amount: { type: string, maxLength: 32 }
    count: { type: integer, minimum: 0 }
    tags: { type: array, items: { type: string }, maxItems: 8 }
    nested: { type: object, properties: { flag: { type: boolean } } }
${hook}`,
  "integrations/raw.yaml": `name: raw
endpoints:
  - { method: POST, path: /raw }
  - { method: GET, path: "/items/{id}" }
  - { method: DELETE, path: "/items/{id}" }
${hook}`,
};

/** How the body travels: with its length, chunked, or short of a larger Content-Length, then the client aborts or half-closes. */
export type Framing = "length" | "chunked" | "short-abort" | "short-end";

export interface FuzzRequest {
  method: string;
  /** The request target as sent on the request line. */
  target: string;
  /** In order; a name may repeat. Host and Connection are added when sent over a socket. */
  headers: [string, string][];
  body: FuzzBody;
  framing: Framing;
}

export type FuzzBody =
  | { kind: "text"; text: string }
  | { kind: "bytes"; bytes: Buffer }
  | { kind: "huge"; size: number };

/** The body's bytes; a huge body is made only here, so a generated request stays small until it is sent. */
export function bodyBytes(body: FuzzBody): Buffer {
  if (body.kind === "text") return Buffer.from(body.text, "utf8");
  if (body.kind === "bytes") return body.bytes;
  return Buffer.alloc(body.size, "[");
}

/** The request as the handler gets it from the server: lower-case header names, repeats as lists. */
export function toServeRequest(request: FuzzRequest): ServeRequest {
  const headers: Record<string, string | string[]> = {};
  // The Host the wire form sends first.
  const host: [string, string] = ["Host", "127.0.0.1"];
  for (const [name, value] of [host, ...request.headers]) {
    const key = name.toLowerCase();
    const before = Object.hasOwn(headers, key) ? headers[key] : undefined;
    const next = before === undefined ? value : [...[before].flat(), value];
    Object.defineProperty(headers, key, {
      value: next,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { method: request.method, url: request.target, headers, body: bodyBytes(request.body) };
}

/** The request as bytes on the wire, with the framing it asks for; header values are sent as latin1. */
export function toWire(request: FuzzRequest): Buffer {
  const body = bodyBytes(request.body);
  const lines = [`${request.method} ${request.target} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close"];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (request.framing === "chunked") lines.push("Transfer-Encoding: chunked");
  else if (request.framing === "length") lines.push(`Content-Length: ${body.length}`);
  else lines.push(`Content-Length: ${body.length + 100}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  if (request.framing !== "chunked") return Buffer.concat([head, body]);
  const chunks: Buffer[] = [head];
  for (let at = 0; at < body.length; at += 65_536) {
    const chunk = body.subarray(at, at + 65_536);
    chunks.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(chunks);
}

/** Every byte of the text's UTF-8 (a lone surrogate as U+FFFD) percent-encoded but the unreserved ones. */
export function percentEncode(text: string): string {
  let encoded = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const char = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}

const oddPieces = [
  "\ud800",
  "\udfff",
  "\udc00\ud800",
  "\u0000",
  "\u0007",
  "\u202e",
  "\u200f",
  "\u2066",
  "\ufeff",
  "\uffff",
  "\u{10ffff}",
  "é",
  "😀",
  "\\",
  '"',
  "<",
  "&amp;",
  "%",
  "../",
  "\r\n",
];
/** Short texts full of what breaks parsers: lone surrogates, NUL, bidi marks, BOMs, quotes. */
export const oddText = fc
  .array(fc.oneof(fc.constantFrom(...oddPieces), fc.string({ maxLength: 6 })), { maxLength: 5 })
  .map((pieces) => pieces.join(""));

const riskyKey = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "polluted",
  "amount",
  "count",
  "tags",
);

/** A JSON string literal: escaped as JSON.stringify does, or raw (lone surrogates then travel as U+FFFD, controls break it). */
const jsonString = fc.oneof(
  oddText.map((text) => JSON.stringify(text)),
  oddText.map((text) => `"${text.replace(/["\\]/g, "\\$&")}"`),
);

/** JSON text (mostly valid) whose objects use risky keys, repeat keys, and nest a few levels. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4 },
    fc.constantFrom("null", "true", "false", "0", "12", "-1.5e300", "1e999"),
    jsonString,
    fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
    fc
      .array(fc.tuple(fc.oneof(riskyKey, jsonString), tie("value")), { maxLength: 4 })
      .map((entries) => `{${entries.map(([key, value]) => `${keyLiteral(key)}:${value}`).join(",")}}`),
  ),
})).value;

function keyLiteral(key: string): string {
  return key.startsWith('"') ? key : JSON.stringify(key);
}

const wrongValue = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
  oddText,
  fc.string({ minLength: 33, maxLength: 40 }),
);
/** Bodies with the wrong types for the echo endpoint's request_schema (and sometimes the right ones). */
const schemaBody = fc
  .record(
    { amount: wrongValue, count: wrongValue, tags: wrongValue, nested: wrongValue },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value));

/** Valid JSON cut short, with a character dropped in, or a known malformed shape. */
const malformedJson = fc.oneof(
  fc
    .tuple(jsonText, fc.nat(), fc.constantFrom("", "}", "]", ",", "'", "\u0000", "\\"))
    .map(([text, at, extra]) => text.slice(0, at % (text.length + 1)) + extra),
  fc.constantFrom(
    '{"a":1,}',
    "{'a':1}",
    "NaN",
    '{"a":01}',
    "[1,2",
    '"\\ud800',
    '{"a":"\u0001"}',
    "\ufeff{}",
    '{"a" 1}',
    "{}{}",
    '{"__proto__":{"polluted":1}',
  ),
);

const deepJson = fc
  .tuple(fc.constantFrom(65, 1000, 100_000), fc.constantFrom("[", '{"a":', '[{"__proto__":'), fc.boolean())
  .map(([depth, opener, closed]) => {
    const open = opener.repeat(depth);
    if (!closed) return open;
    const closer = opener === "[" ? "]" : opener === '{"a":' ? "}" : "}]";
    return `${open}1${closer.repeat(depth)}`;
  });

const xmlName = fc.constantFrom(
  "__proto__",
  "constructor",
  "prototype",
  "a",
  "b",
  "toString",
  "hasOwnProperty",
);
const xmlText: fc.Arbitrary<string> = fc.letrec<{ element: string }>((tie) => ({
  element: fc
    .tuple(
      xmlName,
      fc.array(fc.tuple(xmlName, oddText), { maxLength: 2 }),
      fc.oneof({ maxDepth: 3 }, oddText, fc.array(tie("element"), { maxLength: 3 })),
    )
    .map(([name, attributes, content]) => {
      const attrs = attributes.map(([key, value]) => ` ${key}="${escapeXml(value)}"`).join("");
      const inner = typeof content === "string" ? escapeXml(content) : content.join("");
      return `<${name}${attrs}>${inner}</${name}>`;
    }),
})).element;

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
}

const oddXml = fc.oneof(
  xmlText,
  xmlText.map((text) => `<?xml version="1.0"?>${text}`),
  fc.constantFrom(
    `${"<a>".repeat(100_000)}${"</a>".repeat(100_000)}`,
    "<a>".repeat(100_000),
    '<!DOCTYPE a [<!ENTITY x "xxxxxxxxxx"><!ENTITY y "&x;&x;&x;&x;&x;&x;&x;&x;">]><a>&y;</a>',
    '<!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>',
    "<a><b></a></b>",
    "<a>&#0;&#xD800;&#x110000;</a>",
  ),
);

/** Raw bytes that are not UTF-8: a lone continuation byte, an overlong form, an encoded surrogate, 0xFF. */
const invalidUtf8 = fc
  .tuple(
    fc.constantFrom([0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff], [0xf4, 0x90, 0x80, 0x80]),
    fc.boolean(),
  )
  .map(([bytes, inXml]) =>
    Buffer.concat([
      Buffer.from(inXml ? "<a>" : '{"a":"'),
      Buffer.from(bytes),
      Buffer.from(inXml ? "</a>" : '"}'),
    ]),
  );

const body: fc.Arbitrary<FuzzBody> = fc.oneof(
  fc.constant<FuzzBody>({ kind: "text", text: "" }),
  jsonText.map((text): FuzzBody => ({ kind: "text", text })),
  schemaBody.map((text): FuzzBody => ({ kind: "text", text })),
  malformedJson.map((text): FuzzBody => ({ kind: "text", text })),
  deepJson.map((text): FuzzBody => ({ kind: "text", text })),
  oddXml.map((text): FuzzBody => ({ kind: "text", text })),
  invalidUtf8.map((bytes): FuzzBody => ({ kind: "bytes", bytes })),
  fc
    .constantFrom(bodyLimit + 1, 2 * bodyLimit, 3 * bodyLimit)
    .map((size): FuzzBody => ({ kind: "huge", size })),
);

const contentTypes = fc.constantFrom<string[]>(
  [],
  ["application/json"],
  ["application/json; charset=utf-8"],
  ["APPLICATION/JSON"],
  ["application/problem+json"],
  ["application/xml"],
  ["text/xml; charset=utf-8"],
  ["application/soap+xml"],
  ["text/plain"],
  [""],
  ["application/x-www-form-urlencoded"],
  ["multipart/form-data; boundary=x"],
  ["application/json, text/plain"],
  [";;;"],
  ["application/"],
  ["*/*"],
  ["application/json", "application/xml"],
  ["text/plain", "application/json"],
);

const knownTarget = fc.constantFrom(
  "/echo",
  "/echo/1",
  "/echo/__proto__",
  "/raw",
  "/items/1",
  "/items/constructor",
  "/_bass/health",
  "/_bass/runs",
  "/_bass/openapi.json",
  "/_bass/runs/..%2F..%2Fetc%2Fpasswd",
  "/_bass/runs/../../x",
  "/_bass/runs/%2e%2e/%2e%2e/etc/passwd",
  "/_bass/runs/%2E%2E%2F%2E%2E%2Fbass.config.yaml",
  "/_bass/runs/..%5C..%5Cx",
  "/_bass/runs/%00",
  "/_bass/runs/01ARZ3NDEKTSV4RRFFQ69G5FAV",
  "/_bass/runs/01ARZ3NDEKTSV4RRFFQ69G5FAV/../../../etc/passwd",
  "/_bass/runs/01ARZ3NDEKTSV4RRFFQ69G5FAV%2F..%2F..%2Fx",
  "/_bass/runs?limit=-1",
  "/_bass/runs?limit=1e9",
  "/_bass/runs?status=__proto__",
  "/_bass/runs?integration=../../x",
  "/_bass",
  "/_bass/",
  "//127.0.0.1/_bass/health",
  "/echo/",
  "/ECHO",
  "*",
  "/%",
  "/%zz",
  "/echo%2f1",
  "/items/%2e%2e",
  "/items/%ff%fe",
  "/items/%ed%a0%80",
  "http://127.0.0.1/raw",
  "http://[/raw",
  "http://%zz/",
);

const query = fc
  .array(
    fc.tuple(
      fc.oneof(
        riskyKey,
        fc.constantFrom("__proto__[polluted]", "constructor[prototype][polluted]", "a[]", "", "a.b"),
      ),
      oddText,
    ),
    { maxLength: 4 },
  )
  .map((pairs) =>
    pairs.length === 0
      ? ""
      : `?${pairs.map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`).join("&")}`,
  );

const target = fc.oneof(
  fc.tuple(knownTarget, query).map(([path, search]) => (path.includes("?") ? path : path + search)),
  fc.integer({ min: 27, max: 20_000 }).map((length) => `/_bass/runs/${"A".repeat(length)}`),
  fc
    .tuple(fc.constantFrom("/items/", "/_bass/runs/", "/echo/"), oddText, query)
    .map(([path, text, search]) => path + percentEncode(text) + search),
);

const method = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "HEAD",
      "OPTIONS",
      "TRACE",
      "PROPFIND",
      "PURGE",
      "QUERY",
      "SEARCH",
      "M-SEARCH",
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom("get", "FOO", "POST ") },
);

/** Header values as latin1 text: odd unicode arrives as its UTF-8 bytes, read back by Node as latin1; NUL and other controls Node refuses. */
const headerValue = oddText.map((text) =>
  Buffer.from(text.replace(/[\r\n]/g, ""), "utf8").toString("latin1"),
);

const extraHeaders = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constant("Idempotency-Key"), fc.stringMatching(/^[!-~]{1,64}$/)),
      fc.tuple(fc.constant("Idempotency-Key"), fc.oneof(headerValue, fc.constant("k".repeat(65)))),
      fc.tuple(
        fc.constantFrom("__proto__", "constructor", "prototype", "X-Note", "Authorization"),
        headerValue,
      ),
      fc.constant<[string, string]>(["X-Big", "a".repeat(20_000)]),
    ),
    { maxLength: 3 },
  )
  .map((headers) => headers.map(([name, value]): [string, string] => [name, value]));

/** The method and path of an endpoint of the fuzz project, with a query: requests that reach a run. */
const endpoint = fc
  .tuple(
    fc.constantFrom(
      ["POST", "/echo"],
      ["PUT", "/echo/1"],
      ["PATCH", "/echo/__proto__"],
      ["POST", "/raw"],
      ["GET", "/items/constructor"],
      ["DELETE", "/items/1"],
    ),
    query,
  )
  .map(([[verb, path], search]) => ({ method: verb as string, target: (path as string) + search }));

/** One bad (or, a third of the time, well-aimed) request. */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    line: fc.oneof(
      { weight: 2, arbitrary: fc.record({ method, target }) },
      { weight: 1, arbitrary: endpoint },
    ),
    contentType: contentTypes,
    extra: extraHeaders,
    body,
    framing: fc.constantFrom<Framing>(
      "length",
      "length",
      "length",
      "length",
      "chunked",
      "short-abort",
      "short-end",
    ),
  })
  .map(({ line, contentType, extra, body, framing }) => ({
    ...line,
    headers: [...contentType.map((type): [string, string] => ["Content-Type", type]), ...extra],
    body,
    framing,
  }));
