import { setOwn } from "../objects.js";

export interface Route<T> {
  method: string;
  /** `/api/v1/customers/{id}`: static segments and whole-segment `{param}`s. */
  path: string;
  target: T;
}

export type RouteMatch<T> =
  | { kind: "found"; target: T; params: Record<string, string> }
  | { kind: "method-not-allowed"; allow: string[] }
  | { kind: "not-found" };

export interface Router<T> {
  /** Matches a request's method and raw (still percent-encoded) pathname, without its query. */
  match(method: string, pathname: string): RouteMatch<T>;
}

type Segment = { param: false; value: string } | { param: true; name: string };

interface CompiledRoute<T> {
  method: string;
  segments: Segment[];
  /** The names of the route's params, in path order. */
  params: string[];
  target: T;
}

/**
 * A router over `routes`, each path split once. Among the paths that match, the one whose first
 * differing segment is static wins; a method is looked up among the paths that have it, so
 * `GET /a/{id}` still answers `GET /a/new` when `/a/new` has only POST. A known path without the
 * method gives 405 with every method the matching paths have (HEAD is not implied by GET).
 */
export function createRouter<T>(routes: readonly Route<T>[]): Router<T> {
  const compiled = routes.map((route): CompiledRoute<T> => {
    const segments = splitPattern(route.path);
    const params = segments.flatMap((segment) => (segment.param ? [segment.name] : []));
    return { method: route.method, segments, params, target: route.target };
  });
  return {
    match(method, pathname) {
      const segments = splitPathname(pathname);
      if (segments === undefined) return { kind: "not-found" };
      let best: { route: CompiledRoute<T>; values: string[] } | undefined;
      const allow = new Set<string>();
      for (const route of compiled) {
        const values = matchSegments(route.segments, segments);
        if (values === undefined) continue;
        allow.add(route.method);
        if (route.method === method && beats(route, best?.route)) best = { route, values };
      }
      if (best !== undefined) return { kind: "found", target: best.route.target, params: paramsOf(best) };
      if (allow.size > 0) return { kind: "method-not-allowed", allow: [...allow].sort() };
      return { kind: "not-found" };
    },
  };
}

/** Whether `route` is the one to take over `best`, the best match so far, if any. */
function beats<T>(route: CompiledRoute<T>, best: CompiledRoute<T> | undefined): boolean {
  return best === undefined || isMoreSpecific(route, best);
}

function splitPattern(path: string): Segment[] {
  return trimSlashes(path).map((part): Segment => {
    const param = /^\{(.+)\}$/.exec(part);
    return param?.[1] !== undefined ? { param: true, name: param[1] } : { param: false, value: part };
  });
}

/** The decoded segments of a pathname, or undefined when one does not decode (a 404, never a throw). */
function splitPathname(pathname: string): string[] | undefined {
  if (!pathname.startsWith("/")) return undefined;
  const decoded = trimSlashes(pathname);
  for (let index = 0; index < decoded.length; index++) {
    const part = decoded[index] as string;
    if (!part.includes("%")) continue;
    try {
      decoded[index] = decodeURIComponent(part);
    } catch {
      return undefined;
    }
  }
  return decoded;
}

/** `/a/b/` and `/a/b` are one path; `/` has no segments. */
function trimSlashes(path: string): string[] {
  const start = path.startsWith("/") ? 1 : 0;
  const end = path.length > start && path.endsWith("/") ? path.length - 1 : path.length;
  const inner = path.slice(start, end);
  return inner === "" ? [] : inner.split("/");
}

/** The values of the pattern's params, or undefined when the path does not match. */
function matchSegments(pattern: Segment[], segments: string[]): string[] | undefined {
  if (pattern.length !== segments.length) return undefined;
  const values: string[] = [];
  for (let index = 0; index < pattern.length; index++) {
    const want = pattern[index] as Segment;
    const got = segments[index] as string;
    if (!want.param) {
      if (want.value !== got) return undefined;
    } else {
      // `%2F` decodes to a slash; a param is one segment, so such a value matches no param.
      if (got === "" || got.includes("/")) return undefined;
      values.push(got);
    }
  }
  return values;
}

/** Whether `a` beats `b`: at the first segment where one is static and the other a param, static wins. */
function isMoreSpecific<T>(a: CompiledRoute<T>, b: CompiledRoute<T>): boolean {
  for (let index = 0; index < a.segments.length; index++) {
    const left = a.segments[index]?.param;
    const right = b.segments[index]?.param;
    if (left !== right) return right === true;
  }
  return false;
}

function paramsOf<T>(best: { route: CompiledRoute<T>; values: string[] }): Record<string, string> {
  const params: Record<string, string> = {};
  // setOwn defines `__proto__` as an own key, so even a param of that name stays plain data.
  const { params: names } = best.route;
  for (let index = 0; index < names.length; index++)
    setOwn(params, names[index] as string, best.values[index] as string);
  return params;
}
