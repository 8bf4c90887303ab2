const origin = "http://bass.invalid";

/**
 * A request target (RFC 9112 §3.2) as a URL, or undefined when it is none. A path is read as a path, so
 * `//host/_bass/runs` is the path it says and never a host and `/_bass/runs`; an absolute URL is read as itself.
 */
export function parseRequestTarget(target: string): URL | undefined {
  try {
    return target.startsWith("/") ? new URL(origin + target) : new URL(target, origin);
  } catch {
    return undefined;
  }
}
