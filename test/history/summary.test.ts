import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/engine/types.js";
import { summaryOf } from "../../src/history/summary.js";
import { aRecord, recordedAt } from "../_records.js";

const at = recordedAt;
const base: RunRecord = aRecord({ trigger: "http", duration_ms: 4, labels: ["vip"] });

describe("summaryOf", () => {
  it("gives a served run's method, path with its query, and the status of its answer", () => {
    const record: RunRecord = {
      ...base,
      items: [
        {
          seq: 1,
          at,
          kind: "INPUT",
          data: {
            payload: {},
            method: "GET",
            path: {},
            params: {},
            headers: {},
            fullpath: "/customers?id=P1",
          },
        },
        { seq: 2, at, kind: "OUTPUT", data: { status: 404, headers: {}, payload: null } },
      ],
    };
    expect(summaryOf(record)).toEqual({
      id: base.id,
      integration: "customers.create",
      status: "success",
      trigger: "http",
      started_at: at,
      duration_ms: 4,
      labels: ["vip"],
      method: "GET",
      path: "/customers?id=P1",
      http_status: 404,
    });
  });

  it("names a callint child's parent and a re-run's original, and leaves out what a run has not", () => {
    const child = summaryOf({
      ...base,
      trigger: "callint",
      parent_run: "01JD8X4ZQ5M2V7K3N9P6R1T0WX",
      items: [],
    });
    expect(child).toMatchObject({ parent_run: "01JD8X4ZQ5M2V7K3N9P6R1T0WX" });
    expect(child).not.toHaveProperty("method");
    expect(child).not.toHaveProperty("http_status");
    expect(summaryOf({ ...base, rerun_of: "01JD8X4ZQ5M2V7K3N9P6R1T0WV" })).toMatchObject({
      rerun_of: "01JD8X4ZQ5M2V7K3N9P6R1T0WV",
    });
  });
});
