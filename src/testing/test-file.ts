import type { MockAnswers } from "../adapters/mock.js";
import type { OutputData } from "../engine/record.js";

/** A `*.test.yaml` file (SPEC §11): cases of one integration. */
export interface TestFile {
  integration: string;
  cases: TestCase[];
}

export interface TestCase {
  name: string;
  input?: {
    payload?: unknown;
    method?: string;
    path?: Record<string, string>;
    params?: Record<string, unknown>;
    headers?: Record<string, string>;
  };
  input_file?: string;
  mocks?: MockAnswers;
  cassette?: string;
  expect?: Expectations;
}

export interface Expectations {
  state?: "success" | "failure";
  output?: Partial<OutputData>;
  items?: Record<string, unknown>[];
  never_recorded?: (string | number)[];
}
