import type { InputData, Item, OutputData, RunRecord } from "../src/engine/types.js";

/** The time the tests' records say their runs started and ended at. */
export const recordedAt = "2026-01-02T03:04:05.000Z";

/** A finished run of customers.create with no items; `overrides` set what a test is about. */
export function aRecord(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id: "01JD8X4ZQ5M2V7K3N9P6R1T0WY",
    integration: "customers.create",
    status: "success",
    trigger: "test",
    started_at: recordedAt,
    ended_at: recordedAt,
    duration_ms: 5,
    labels: [],
    async: false,
    items: [],
    ...overrides,
  };
}

/** An INPUT item: a POST of `payload` to `/` with nothing else, unless `data` says more. */
export function inputItem(payload: unknown, data: Partial<InputData> = {}, seq = 1): Item {
  return {
    seq,
    at: recordedAt,
    kind: "INPUT",
    data: { method: "POST", fullpath: "/", path: {}, params: {}, headers: {}, payload, ...data },
  };
}

/** An OUTPUT item: status 200, no headers, a null payload, unless `data` says otherwise. */
export function outputItem(seq: number, data: Partial<OutputData> = {}): Item {
  return { seq, at: recordedAt, kind: "OUTPUT", data: { status: 200, headers: {}, payload: null, ...data } };
}
