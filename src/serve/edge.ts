import { isIP } from "node:net";
import type { ServeAuth } from "../definition/types.js";

/** What serve's edge checks a request's `Host` and `Origin` against (docs/behaviour.md#bass-serve). */
export interface EdgeRules {
  /** The host serve listens on (`--host`, `serve.host`). */
  boundHost: string;
  /** `serve.allowed_hosts`: names, or `.example.com` for a domain and its subdomains. */
  allowedHosts: readonly string[];
  /** `serve.allowed_origins`: origins (`https://app.example.com:8443`) whose pages may post. */
  allowedOrigins: readonly string[];
  auth: ServeAuth;
}

/** Why the edge refuses a request: its status and the problem's detail. */
export interface EdgeRefusal {
  status: 400 | 403 | 421;
  detail: string;
}

const unsafeMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The DNS-rebinding defence: a page on another site whose name resolves to this machine sends its own
 * name as `Host`. Only an IP literal, `localhost`, the bound host or an allowed name passes, as Vite and
 * webpack-dev-server do it.
 */
export function checkHost(host: string | undefined, rules: EdgeRules): EdgeRefusal | undefined {
  if (host === undefined || host === "") return { status: 400, detail: "the request has no Host header" };
  const name = hostName(host);
  if (name === undefined) return { status: 400, detail: "the Host header is not a host" };
  if (isIP(name) || name === "localhost" || name === hostName(rules.boundHost)) return undefined;
  if (rules.allowedHosts.some((allowed) => matchesHost(name, allowed))) return undefined;
  return {
    status: 421,
    detail: `this server does not answer for the host ${name}; add it to serve.allowed_hosts to allow it`,
  };
}

/**
 * Cross-site requests under `auth: none` or `basic`: a form post or a `text/plain` fetch needs no CORS
 * preflight, so any page a developer opens could post a transfer, and a browser that was once given a
 * basic-auth user sends it with every request by itself. An unsafe method whose `Origin` names another
 * origin than the one served, or whose `Sec-Fetch-Site` says cross-site, is refused unless the origin is
 * allowed. Requests without these headers (curl, SDKs) pass, and so does any under bearer auth, whose
 * token a page cannot send without having it.
 */
export function checkOrigin(
  method: string,
  headers: { host?: string | undefined; origin?: string | undefined; fetchSite?: string | undefined },
  rules: EdgeRules,
): EdgeRefusal | undefined {
  if (rules.auth.type === "bearer" || !unsafeMethods.has(method)) return undefined;
  const { origin, fetchSite } = headers;
  if (origin !== undefined && rules.allowedOrigins.includes(origin)) return undefined;
  // The scheme is left out: behind a proxy that ends TLS, a page of the served host posts from https.
  const served = headers.host === undefined ? undefined : URL.parse(`http://${headers.host}`)?.host;
  const crossOrigin = origin !== undefined && (URL.parse(origin)?.host ?? "") !== served;
  if (!crossOrigin && fetchSite !== "cross-site") return undefined;
  return {
    status: 403,
    detail: `a ${method} from another site is refused while serve.auth is ${rules.auth.type}; add its origin to serve.allowed_origins, or use bearer auth`,
  };
}

/** A name or IPv4 address with an optional port: most Host values, read without a URL parser. */
const plainHost = /^([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)\.?(?::\d{1,5})?$/;

/** The name of a `Host` value, lower case, without its port and brackets; undefined when it is none. */
function hostName(host: string): string | undefined {
  const plain = plainHost.exec(host)?.[1];
  if (plain !== undefined) return plain.toLowerCase();
  const parsed = URL.parse(`http://${host.trim()}/`);
  if (!parsed || parsed.username || parsed.password || parsed.pathname !== "/") return undefined;
  const name = parsed.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  return name === "" ? undefined : name;
}

function matchesHost(name: string, allowed: string): boolean {
  const entry = allowed.toLowerCase();
  if (entry.startsWith(".")) return name === entry.slice(1) || name.endsWith(entry);
  return name === entry;
}
