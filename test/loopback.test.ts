import { describe, expect, it } from "vitest";
import { isLoopbackHost } from "../src/loopback.js";

describe("isLoopbackHost", () => {
  it.each<[string, boolean]>([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["127.255.255.255", true],
    ["localhost", true],
    ["LocalHost", true],
    ["::1", true],
    ["[::1]", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::ffff:127.0.0.1", true],
    ["0.0.0.0", false],
    ["::", false],
    ["", false],
    ["128.0.0.1", false],
    ["10.0.0.1", false],
    ["192.168.1.10", false],
    ["::2", false],
    ["::ffff:10.0.0.1", false],
    ["fe80::1%eth0", false],
    ["127.0.0.1.example.com", false],
    ["localhost.example.com", false],
    ["example.com", false],
    ["127.0.0.256", false],
  ])("%j → %s", (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});
