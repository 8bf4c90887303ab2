import { XMLParser, XMLValidator } from "fast-xml-parser";

export type ParsedBody = { ok: true; value: unknown } | { ok: false; status: 400 | 415; detail: string };

export interface ParseBodyLimits {
  /** How deeply arrays and objects (or XML elements) may nest; default 64. */
  maxDepth?: number;
}

export const defaultMaxDepth = 64;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A request body as `input.payload` (docs/behaviour.md#bass-serve): empty → `{}`, JSON and XML into values, anything
 * else refused. Details never quote the body: it can hold secrets, and problems are logged.
 */
export function parseBody(
  body: Uint8Array,
  contentType: string | undefined,
  limits: ParseBodyLimits = {},
): ParsedBody {
  if (body.length === 0) return { ok: true, value: {} };
  const maxDepth = limits.maxDepth ?? defaultMaxDepth;
  const kind = bodyKind(contentType);
  if (kind === undefined) {
    return {
      ok: false,
      status: 415,
      detail:
        "the body must be JSON (application/json, */*+json) or XML (application/xml, text/xml, */*+xml)",
    };
  }
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return refuse("the body is not valid UTF-8");
  }
  return kind === "json" ? parseJson(text, maxDepth) : parseXml(text, maxDepth);
}

/** `json`, `xml`, or undefined for a media type serve does not read; parameters (charset …) are ignored. */
function bodyKind(contentType: string | undefined): "json" | "xml" | undefined {
  const essence = (contentType ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
  const match = /^([a-z0-9!#$&^_.+-]+)\/([a-z0-9!#$&^_.+-]+)$/.exec(essence);
  if (!match) return undefined;
  const subtype = match[2] as string;
  if (essence === "application/json" || subtype.endsWith("+json")) return "json";
  if (essence === "application/xml" || essence === "text/xml" || subtype.endsWith("+xml")) return "xml";
  return undefined;
}

function parseJson(text: string, maxDepth: number): ParsedBody {
  // JSON.parse recurses per level: the depth is checked first, so `[[[[…` never reaches it.
  if (jsonDepth(text) > maxDepth) return refuse(`the body nests deeper than ${maxDepth} levels`);
  try {
    // JSON.parse defines `__proto__` and `constructor` keys as own data properties: nothing is polluted.
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return refuse("the body is not valid JSON");
  }
}

/** The deepest nesting of arrays and objects, counting brackets outside strings; invalid JSON is left to the parser. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      index = endOfString(text, index);
    } else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if ((code === 0x5d || code === 0x7d) && depth > 0) {
      depth--; // stray closers (invalid anyway) never buy room for deeper nesting after them
    }
  }
  return deepest;
}

/** The index of the quote that closes the string opening at `open`, or the text's length when none does. */
function endOfString(text: string, open: number): number {
  for (let index = open + 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x5c)
      index++; // a backslash escapes the next character
    else if (code === 0x22) return index;
  }
  return text.length;
}

function parseXml(text: string, maxDepth: number): ParsedBody {
  // XMLValidator walks the text without recursion; the parser below nests only up to maxNestedTags.
  if (XMLValidator.validate(text) !== true) return refuse("the body is not well-formed XML");
  // A DTD is the door to entity expansion (billion laughs, external entities): serve reads no DTD.
  if (/<!DOCTYPE/i.test(text)) return refuse("the body holds a DOCTYPE, which serve does not accept");
  const parser = new XMLParser({
    ignoreAttributes: false,
    parseTagValue: false,
    parseAttributeValue: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    // Character references (&#65;) and the fixed table of named ones; no entity is ever defined by the body.
    htmlEntities: true,
    // The parser counts the levels below the root element.
    maxNestedTags: maxDepth - 1,
  });
  try {
    return { ok: true, value: parser.parse(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (/nested tags/i.test(message)) return refuse(`the body nests deeper than ${maxDepth} levels`);
    // The parser refuses these names rather than let them reach an object's prototype.
    if (/SECURITY/.test(message))
      return refuse("the body names an element __proto__, constructor or prototype");
    return refuse("the body is not XML that serve can read");
  }
}

function refuse(detail: string): ParsedBody {
  return { ok: false, status: 400, detail };
}
