import { describe, expect, it } from "vitest";
import type { PreparedRequest } from "../../src/adapters/http-request.js";
import {
  backoffDelay,
  isRetryableStatus,
  isRetryableTransportError,
  mayRepeat,
} from "../../src/adapters/http-retry.js";

const request = (method: string, headers: Record<string, string> = {}): PreparedRequest => ({
  method,
  path: "/t",
  headers,
  body: undefined,
});

describe("the http retry policy", () => {
  it.each<[string, Record<string, string>, boolean]>([
    ["GET", {}, true],
    ["HEAD", {}, true],
    ["PUT", {}, true],
    ["DELETE", {}, true],
    ["POST", {}, false],
    ["PATCH", {}, false],
    ["POST", { "Idempotency-Key": "k" }, true],
    ["POST", { "x-idempotency-key": "k" }, true],
    ["PATCH", { "X-Request-Id": "k" }, false],
  ])("may repeat %s with headers %o: %s", (method, headers, expected) => {
    expect(mayRepeat(request(method, headers))).toBe(expected);
  });

  it.each([
    [429, true],
    [502, true],
    [503, true],
    [504, true],
    [500, false],
    [404, false],
    [200, false],
  ])("retries status %i: %s", (status, expected) => {
    expect(isRetryableStatus(status)).toBe(expected);
  });

  it.each([
    ["ECONNRESET", true],
    ["UND_ERR_SOCKET", true],
    ["", true],
    ["UND_ERR_INVALID_ARG", false],
    ["UND_ERR_CLOSED", false],
  ])("retries transport error %j: %s", (code, expected) => {
    expect(isRetryableTransportError(code)).toBe(expected);
  });

  it.each([
    [1, 100, 0.5, 50],
    [2, 100, 0.5, 100],
    [3, 100, 0.999, 399],
    [1, 100, 0, 0],
    [20, 100, 0.5, 15_000],
  ])("waits after %i attempts (backoff %i ms, draw %d): %i ms", (made, backoffMs, draw, expected) => {
    expect(backoffDelay(made, backoffMs, () => draw)).toBe(expected);
  });
});
