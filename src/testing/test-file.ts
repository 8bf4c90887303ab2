import type { MockAnswers } from "../adapters/mock.js";
import type { OutputData } from "../engine/types.js";

/** A `*.test.yaml` file (docs/reference.md#test-file): cases of one integration. */
export interface TestFile {
  integration: string;
  cases: TestCase[];
}

/** A case's request: the body as `payload`, and the rest of it where it matters. */
export interface CaseRequest {
  payload?: unknown;
  method?: string;
  path?: Record<string, string>;
  params?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface TestCase {
  name: string;
  input?: CaseRequest;
  /** A JSON file of the request body. */
  input_file?: string;
  /** The request, as `input` (the name `bass run --input-envelope` files use). */
  request?: CaseRequest;
  /** A JSON file of the whole request: an envelope, as `bass run --input-envelope` reads. */
  request_file?: string;
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
