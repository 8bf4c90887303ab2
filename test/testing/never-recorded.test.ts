import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/engine/types.js";
import { checkExpectations } from "../../src/testing/expectations.js";

const at = "2026-01-02T03:04:05.000Z";

function recordLogging(data: string): RunRecord {
  return {
    id: "01JD8X4ZQ5M2V7K3N9P6R1T0WY",
    integration: "leak",
    status: "success",
    trigger: "test",
    started_at: at,
    ended_at: at,
    duration_ms: 1,
    labels: [],
    async: false,
    items: [{ seq: 1, at, kind: "LOG", level: "info", data }],
  };
}

describe("never_recorded with characters that JSON escapes", () => {
  it.each([['pa"ss-word'], ["C:\\secrets\\key"], ["line one\nline two"], ["tab\there"]])(
    "catches %j",
    (secret) => {
      expect(checkExpectations({ never_recorded: [secret] }, recordLogging(`token ${secret}`))).toEqual([
        {
          path: "expect.never_recorded[0]",
          message: "a value that must never be recorded is in the run's record (in item 1, LOG)",
        },
      ]);
    },
  );
});
