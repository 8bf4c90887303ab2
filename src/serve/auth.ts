import { createHash, timingSafeEqual } from "node:crypto";
import type { ServeAuth } from "../definition/types.js";
import type { RunUser } from "../engine/types.js";
import { BassError } from "../errors.js";
import { isLoopbackHost } from "../loopback.js";

/**
 * Whether an `Authorization` header value lets a request in: the scope of its credential (`none`,
 * `bearer:<sha256 of the token>`, `basic:<sha256 of the user>`), whose Idempotency-Keys are its own
 * (docs/behaviour.md#bass-serve), or undefined when it may not come in.
 */
export type Authenticator = (authorization: string | undefined) => string | undefined;

/**
 * The check of serve's `auth` (docs/reference.md#serveauth, docs/behaviour.md#bass-serve). Secrets are compared as sha256 digests with
 * timingSafeEqual, against every configured token or user without an early exit, so neither the
 * length of a secret nor which entry matched shows in the time an answer takes.
 */
export function createAuthenticator(auth: ServeAuth | undefined): Authenticator {
  if (auth === undefined || auth.type === "none") return () => "none";
  if (auth.type === "bearer") {
    const tokens = auth.tokens.map(digest);
    return (authorization) => {
      const token = credentials(authorization, "bearer");
      if (token === undefined) return undefined;
      const presented = digest(token);
      return matchesAny(presented, tokens) ? `bearer:${presented.toString("hex")}` : undefined;
    };
  }
  const users = Object.entries(auth.users).map(([user, password]) => ({
    user: digest(user),
    password: digest(password),
  }));
  return (authorization) => {
    const pair = decodeBasic(credentials(authorization, "basic"));
    if (pair === undefined) return undefined;
    const user = digest(pair.user);
    const password = digest(pair.password);
    let matched = false;
    for (const entry of users) {
      // `&` rather than `&&`: both halves are compared for every user.
      const both =
        Number(timingSafeEqual(user, entry.user)) & Number(timingSafeEqual(password, entry.password));
      matched = both === 1 || matched;
    }
    return matched ? `basic:${user.toString("hex")}` : undefined;
  };
}

/**
 * The user a request's credential names, for `input.user`: the basic-auth user, `bearer:` and the first
 * 8 hex of the token's SHA-256 (never the token), or null under no auth. `scope` is what the
 * authenticator let in.
 */
export function userOf(scope: string, authorization: string | undefined): RunUser | null {
  if (scope.startsWith("bearer:"))
    return runUser(`bearer:${scope.slice("bearer:".length, "bearer:".length + 8)}`);
  if (!scope.startsWith("basic:")) return null;
  const pair = decodeBasic(credentials(authorization, "basic"));
  return pair ? runUser(pair.user) : null;
}

/** A run's user as the platform's `input.user` has it: `{ id, username, email }`, of which bass knows the name. */
function runUser(username: string): RunUser {
  return { id: null, username, email: null };
}

function digest(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

function matchesAny(candidate: Buffer, secrets: readonly Buffer[]): boolean {
  let matched = false;
  for (const secret of secrets) matched = timingSafeEqual(candidate, secret) || matched;
  return matched;
}

/** The credentials after `<scheme> ` (the scheme is case-insensitive), or undefined for another scheme. */
function credentials(authorization: string | undefined, scheme: "bearer" | "basic"): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(authorization);
  if (match?.[1]?.toLowerCase() !== scheme) return undefined;
  return match[2];
}

/** `user:password` from base64 (RFC 7617, UTF-8), or undefined when it is not that. */
function decodeBasic(encoded: string | undefined): { user: string; password: string } | undefined {
  if (encoded === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0)
    return undefined;
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(encoded, "base64"));
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Refuses to serve on a host other machines reach while anyone may call it, unless the user said so. */
export function assertSafeBinding(host: string, auth: ServeAuth, insecure: boolean): void {
  if (isLoopbackHost(host) || auth.type !== "none" || insecure) return;
  throw new BassError(
    "USAGE",
    `refusing to serve on ${host} without auth: set serve.auth in the project file, or give --insecure`,
  );
}
