import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/engine/types.js";
import { checkExpectations } from "../../src/testing/expectations.js";
import { aRecord, recordedAt } from "../_records.js";

function recordLogging(data: string): RunRecord {
  return aRecord({
    integration: "leak",
    items: [{ seq: 1, at: recordedAt, kind: "LOG", level: "info", data }],
  });
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
