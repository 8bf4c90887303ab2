import { isIPv4, isIPv6 } from "node:net";

/** Whether `host` is a loopback address or `localhost`, where serve and the mock core may listen without auth. */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (bare === "localhost") return true;
  if (isIPv4(bare)) return bare.startsWith("127.");
  if (!isIPv6(bare)) return false;
  // The URL parser writes an IPv6 address in its shortest form: ::1, or ::ffff:7f00:1 for 127.0.0.1;
  // it refuses a zone id (an address such as fe80::1 followed by its interface), never loopback anyway.
  const canonical = URL.parse(`http://[${bare}]/`)?.hostname ?? "";
  return canonical === "[::1]" || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}
