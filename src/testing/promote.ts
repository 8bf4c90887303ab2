import type { AdapterResponse } from "../adapters/adapter.js";
import type { MockAnswer } from "../adapters/mock.js";
import type { RunRecord } from "../engine/types.js";
import { expectedOutput, outputOf } from "./expectations.js";
import type { TestCase } from "./test-file.js";

/**
 * A test case made from a recorded run (`bass history promote`): its input, its adapters' answers as mocks
 * and its state and output as expectations — all as the masked record holds them, so a masked field reads
 * XXXXXXXXXXXX and may need test data where a rule checks it.
 */
export function promoteRun(record: RunRecord): TestCase {
  const input = record.items.find((item) => item.kind === "INPUT");
  const mocks = mocksOf(record);
  const output = outputOf(record);
  const testCase: TestCase = { name: `run ${record.id} of ${record.started_at.slice(0, 10)}` };
  if (input?.kind === "INPUT") {
    const { payload, method, path, params } = input.data;
    const headers = withoutTransport(input.data.headers);
    testCase.input = { payload, method, path, params, ...(headers ? { headers } : {}) };
  }
  if (Object.keys(mocks).length) testCase.mocks = mocks;
  testCase.expect = {
    state: record.status === "failure" ? "failure" : "success",
    ...(output ? { output: expectedOutput(output) } : {}),
  };
  return testCase;
}

/**
 * Headers of the connection, not of the request's meaning: the client's, the message's length and framing.
 * A case that kept them would hold one machine's curl or browser.
 */
const transportHeaders = new Set([
  "host",
  "user-agent",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "accept-encoding",
]);

/** The run's request headers without the transport's; undefined when none is left. */
function withoutTransport(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  const kept = Object.entries(headers ?? {}).filter(([name]) => !transportHeaders.has(name.toLowerCase()));
  return kept.length ? Object.fromEntries(kept) : undefined;
}

type Mocks = Record<string, MockAnswer | (MockAnswer | null)[]>;

/** Each answered service request's response as a mock; a call_for_each one as a list by sridx. */
function mocksOf(record: RunRecord): Mocks {
  const mocks: Mocks = {};
  for (const item of record.items) {
    if (item.kind !== "REQUEST" || !item.response) continue;
    const answer = mockOf(item.response);
    if (item.sridx === null) mocks[item.label] = answer;
    else {
      const list = (Array.isArray(mocks[item.label]) ? mocks[item.label] : []) as (MockAnswer | null)[];
      while (list.length < item.sridx) list.push(null);
      list[item.sridx] = answer;
      mocks[item.label] = list;
    }
  }
  return mocks;
}

/** An adapter's response as a mock file answers it: status and messages only where there are some. */
function mockOf(response: AdapterResponse): MockAnswer {
  const answer: MockAnswer = { success: response.success, payload: response.payload };
  if (response.status !== undefined) answer.status = response.status;
  if (response.messages.length) answer.messages = response.messages;
  return answer;
}
