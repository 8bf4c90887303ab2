import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ServeResponse } from "./problem.js";

/** Where the build puts the run history page: two folders up from this file, in src/ and in the bundle. */
const uiDir = fileURLToPath(new URL("../../dist/ui/", import.meta.url));

const types: ReadonlyMap<string, string> = new Map([
  ["index.html", "text/html; charset=utf-8"],
  ["app.js", "text/javascript; charset=utf-8"],
  ["app.css", "text/css; charset=utf-8"],
]);

/**
 * The page's own files hold no data, so they need no credential; the page asks for one when a data route
 * answers 401. Nothing is loaded from another host: the policy says so to the browser as well.
 */
const securityHeaders = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/** The page's file at `path` under `/_bass/` (`/_bass/` itself is the page), or undefined for any other. */
export function uiFile(pathname: string): ServeResponse | undefined {
  const name =
    pathname === "/_bass" || pathname === "/_bass/" ? "index.html" : pathname.slice("/_bass/".length);
  const type = types.get(name);
  if (type === undefined) return undefined;
  const body = readUiFile(name);
  if (body === undefined) return undefined;
  return { status: 200, headers: { "content-type": type, ...securityHeaders }, body };
}

const cache = new Map<string, Buffer | undefined>();

/** Read once per process, found or not: the files change only with a new build of bass. */
function readUiFile(name: string): Buffer | undefined {
  if (!cache.has(name)) {
    let body: Buffer | undefined;
    try {
      body = readFileSync(uiDir + name);
    } catch {
      body = undefined;
    }
    cache.set(name, body);
  }
  return cache.get(name);
}
