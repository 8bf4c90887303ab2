import { describe, expect, it } from "vitest";
import { createRouter, type RouteMatch } from "../../src/serve/routes.js";

const router = createRouter([
  { method: "POST", path: "/api/v1/customers", target: "customers.create" },
  { method: "GET", path: "/api/v1/customers/{id}", target: "customers.get" },
  { method: "DELETE", path: "/api/v1/customers/{id}", target: "customers.delete" },
  { method: "GET", path: "/api/v1/customers/search", target: "customers.search" },
  { method: "POST", path: "/api/v1/customers/new", target: "customers.new" },
  { method: "GET", path: "/api/v1/accounts/{account}/transactions/{tx}", target: "transactions.get" },
  { method: "GET", path: "/api/v1/{kind}/summary", target: "summary" },
  { method: "GET", path: "/api/v1/accounts/summary/", target: "accounts.summary" },
  { method: "GET", path: "/", target: "root" },
]);

const found = (target: string, params: Record<string, string> = {}): RouteMatch<string> => ({
  kind: "found",
  target,
  params,
});
const notFound: RouteMatch<string> = { kind: "not-found" };
const notAllowed = (...allow: string[]): RouteMatch<string> => ({ kind: "method-not-allowed", allow });

describe("createRouter().match", () => {
  it.each<[string, string, RouteMatch<string>]>([
    ["POST", "/api/v1/customers", found("customers.create")],
    ["POST", "/api/v1/customers/", found("customers.create")],
    ["GET", "/api/v1/customers/P000001", found("customers.get", { id: "P000001" })],
    ["DELETE", "/api/v1/customers/P000001", found("customers.delete", { id: "P000001" })],
    ["GET", "/api/v1/accounts/A1/transactions/T9", found("transactions.get", { account: "A1", tx: "T9" })],
    ["GET", "/", found("root")],
    ["GET", "", notFound],
    // static segments win over params, whatever the order of the routes
    ["GET", "/api/v1/customers/search", found("customers.search")],
    ["GET", "/api/v1/accounts/summary", found("accounts.summary")],
    ["GET", "/api/v1/persons/summary", found("summary", { kind: "persons" })],
    // a path that only another method has as static still reaches the param route of this method
    ["GET", "/api/v1/customers/new", found("customers.get", { id: "new" })],
    ["DELETE", "/api/v1/customers/new", found("customers.delete", { id: "new" })],
    // percent-decoding of params and static segments
    ["GET", "/api/v1/customers/caf%C3%A9%20au%20lait", found("customers.get", { id: "café au lait" })],
    ["GET", "/api/v1/customers/sea%72ch", found("customers.search")],
    ["GET", "/api/v1/customers/a%2Fb", notFound],
    ["GET", "/api/v1/customers/%E0%A4%A", notFound],
    ["GET", "/api/v1/customers/%", notFound],
    ["GET", "/api/v1/customers/%FF", notFound],
    // shapes that match nothing
    ["GET", "/api/v1/customers/P1/extra", notFound],
    ["GET", "/api/v1/customers//", notFound],
    ["GET", "/api/v1//summary", notFound],
    ["GET", "/API/v1/customers", notFound],
    ["GET", "api/v1/customers", notFound],
    ["GET", "/nowhere", notFound],
    // known path, other method: 405 with every method of the matching paths, HEAD not implied
    ["GET", "/api/v1/customers", notAllowed("POST")],
    ["PUT", "/api/v1/customers/P1", notAllowed("DELETE", "GET")],
    ["HEAD", "/api/v1/customers/P1", notAllowed("DELETE", "GET")],
    ["PATCH", "/api/v1/customers/new", notAllowed("DELETE", "GET", "POST")],
    ["get", "/api/v1/customers/P1", notAllowed("DELETE", "GET")],
  ])("%s %j", (method, pathname, expected) => {
    expect(router.match(method, pathname)).toEqual(expected);
  });

  it("answers the first of two routes with the same method and path", () => {
    const twice = createRouter([
      { method: "GET", path: "/a/{x}", target: 1 },
      { method: "GET", path: "/a/{y}", target: 2 },
    ]);
    expect(twice.match("GET", "/a/b")).toEqual({ kind: "found", target: 1, params: { x: "b" } });
  });

  it("prefers the static segment that comes first, then the next", () => {
    const nested = createRouter([
      { method: "GET", path: "/{a}/{b}/c", target: "params-first" },
      { method: "GET", path: "/{a}/b/{c}", target: "static-second" },
      { method: "GET", path: "/a/{b}/{c}", target: "static-first" },
    ]);
    expect(nested.match("GET", "/a/b/c")).toMatchObject({ target: "static-first" });
    expect(nested.match("GET", "/x/b/c")).toMatchObject({ target: "static-second" });
    expect(nested.match("GET", "/x/y/c")).toMatchObject({ target: "params-first" });
  });

  it("keeps a param named __proto__ as plain own data", () => {
    const odd = createRouter([{ method: "GET", path: "/x/{__proto__}", target: "odd" }]);
    const match = odd.match("GET", "/x/polluted");
    expect(match.kind).toBe("found");
    const params = match.kind === "found" ? match.params : {};
    expect(Object.hasOwn(params, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("never throws on any pathname", () => {
    const samples = [
      "%",
      "/%%",
      "/\u0000",
      "/%C0%AF",
      "/%ED%A0%80",
      "/".repeat(10_000),
      `/${"a/".repeat(5_000)}`,
    ];
    for (const pathname of samples) expect(() => router.match("GET", pathname)).not.toThrow();
  });

  it("matches with nothing to route to", () => {
    expect(createRouter([]).match("GET", "/")).toEqual(notFound);
  });
});
