import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/engine/types.js";
import { isCutText } from "../../src/history/cut.js";
import { recordLine } from "../../src/history/store.js";

function recordWith(payload: unknown, response: unknown = { ok: true }): RunRecord {
  return {
    id: "01JAAAAAAAAAAAAAAAAAAAAAAA",
    integration: "a",
    status: "success",
    items: [
      {
        seq: 1,
        at: "t",
        kind: "INPUT",
        data: { method: "POST", path: {}, params: {}, headers: {}, payload },
      },
      {
        seq: 2,
        at: "t",
        kind: "REQUEST",
        formula_variable: "core",
        system: "core",
        request: { payload: { small: 1 } },
        response: { status: 200, payload: response },
      },
      { seq: 3, at: "t", kind: "DEBUG", data: payload },
    ],
  } as unknown as RunRecord;
}

describe("history.max_item_bytes", () => {
  it("keeps a record whose payloads all fit as it is", () => {
    const record = recordWith({ name: "Ada" });
    expect(recordLine(record, { storePayloads: true, maxItemBytes: 1024 })).toBe(JSON.stringify(record));
  });

  it("cuts each payload past the limit to its first bytes of JSON and a note, and leaves the others", () => {
    const big = { text: "é".repeat(5000) };
    const record = recordWith(big);
    const line = recordLine(record, { storePayloads: true, maxItemBytes: 1024 });
    const kept = JSON.parse(line) as RunRecord;
    const input = kept.items[0] as { data: { payload: string } };
    const full = JSON.stringify(big);
    expect(input.data.payload).toMatch(
      new RegExp(
        `^\\{"text":"é+…\\[cut by bass: ${Buffer.byteLength(full)} bytes of JSON, history\\.max_item_bytes keeps 1024\\]$`,
      ),
    );
    expect(Buffer.byteLength(input.data.payload.split("…[cut")[0] as string)).toBeLessThanOrEqual(1024);
    expect(full.startsWith(input.data.payload.split("…[cut")[0] as string)).toBe(true);
    expect(isCutText(input.data.payload)).toBe(true);
    expect((kept.items[2] as { data: unknown }).data).toBe(input.data.payload);
    // The request and the response were short: kept whole.
    expect(kept.items[1]).toEqual(record.items[1]);
    expect(line.length).toBeLessThan(3000);
  });

  it("cuts a long response as well", () => {
    const record = recordWith({ small: 1 }, ["x".repeat(4000)]);
    const kept = JSON.parse(recordLine(record, { storePayloads: true, maxItemBytes: 1024 })) as RunRecord;
    const response = (kept.items[1] as { response: { payload: unknown } }).response.payload;
    expect(isCutText(response as string)).toBe(true);
    expect((kept.items[0] as { data: { payload: unknown } }).data.payload).toEqual({ small: 1 });
  });

  it("cuts at 256 KiB when the project file sets no limit", () => {
    const record = recordWith({ text: "x".repeat(300 * 1024) });
    const kept = JSON.parse(recordLine(record, { storePayloads: true })) as RunRecord;
    expect((kept.items[0] as { data: { payload: string } }).data.payload).toMatch(/keeps 262144\]$/);
  });
});
