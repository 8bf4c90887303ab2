import { randomUUID } from "node:crypto";
import { onTestFinished } from "vitest";
import type { Adapter, AdapterRequest } from "../../src/adapters/adapter.js";
import { createTempDir } from "../_helpers.js";

/** An account number the `transfers` integration masks (INPUT mask on `account`). */
export const secretAccount = "9876543210";

/** The served integrations of the serve tests; every one calls the system `core` (a fake core, below). */
export const servedIntegrations: Record<string, string> = {
  "integrations/items.yaml": `name: items
endpoints:
  - { method: GET, path: /items }
  - { method: GET, path: "/items/{item_id}" }
  - { method: PUT, path: "/items/{item_id}" }
  - { method: DELETE, path: "/items/{item_id}/tags/{tag}" }
service_requests:
  - formula_variable: core
    system: core
    service_name: echo
    field_mappings:
      - field: body
        value: input.payload
on_success_hook: |
  output.payload = {
    method: input.method,
    path: input.path,
    params: input.params,
    payload: input.payload,
    call: core.response.payload.call,
  }
`,
  "integrations/transfers.yaml": `name: transfers
endpoints:
  - { method: POST, path: /transfers }
  - { method: POST, path: "/accounts/{account}/transfers" }
masks:
  - type: INPUT
    field: account
service_requests:
  - formula_variable: core
    system: core
    service_name: transfer
    field_mappings:
      - field: body
        value: input.payload
on_success_hook: |
  output.status = 201
  output.headers = { Location: '/transfers/' + core.response.payload.call }
  output.payload = { amount: input.payload.amount, call: core.response.payload.call }
`,
  "integrations/strict.yaml": `name: strict
endpoints:
  - { method: POST, path: /strict }
request_schema:
  type: object
  required: [amount]
  additionalProperties: false
  properties:
    amount: { type: number }
service_requests:
  - formula_variable: core
    system: core
    service_name: echo
    field_mappings:
      - field: body
        value: input.payload
on_success_hook: output.payload = core.response.payload.body
`,
  "integrations/outputs.yaml": `name: outputs
endpoints:
  - { method: GET, path: "/outputs/{kind}" }
validation_rules:
  - type: INPUT
    field: input.path.kind
    rule: _ !== 'invalid'
    message: kind must not be invalid
service_requests:
  - formula_variable: core
    system: core
    service_name: echo
    field_mappings:
      - field: body
        value: input.path
on_success_hook: |
  if (input.path.kind === 'csv') {
    output.headers = { 'Content-Type': 'text/csv; charset=utf-8', 'X-Rows': '1' }
    output.payload = bytes('a,b\\n1,2\\n')
  } else if (input.path.kind === 'not-bytes') {
    output.headers = { 'Content-Type': 'text/plain' }
    output.payload = 'plain text is not a byte string'
  } else {
    output.payload = { kind: input.path.kind }
  }
`,
  "integrations/jobs.yaml": `name: jobs
run_async: true
endpoints:
  - { method: POST, path: /jobs }
masks:
  - type: INPUT
    field: account
before_hook: add_run_label('job')
service_requests:
  - formula_variable: core
    system: core
    service_name: job
    field_mappings:
      - field: body
        value: input.payload
on_success_hook: "output.payload = { done: core.response.payload.call }"
`,
  "integrations/unserved.yaml": `name: unserved
service_requests:
  - formula_variable: core
    system: core
    service_name: echo
    field_mappings:
      - field: body
        literal: {}
`,
};

/** A core whose calls the test counts and can hold: `hold()` makes the next calls wait until released. */
export interface FakeCore extends Adapter {
  readonly calls: number;
  /** Holds every call from now on; `entered` resolves when the next call arrives. */
  hold(): { entered: Promise<AdapterRequest>; release(): void };
}

/** A fake core: answers `{ body, call }` with the request's body and the call's number (from 1). */
export function createFakeCore(): FakeCore {
  let calls = 0;
  let gate: Promise<void> | undefined;
  let arrivals: Array<(request: AdapterRequest) => void> = [];
  const core: FakeCore = {
    get calls() {
      return calls;
    },
    async execute(request) {
      calls += 1;
      const call = calls;
      for (const arrived of arrivals) arrived(request);
      arrivals = [];
      if (gate) await gate;
      const body = (request.payload as { body?: unknown }).body;
      return { success: true, status: 200, payload: { body, call }, messages: [] };
    },
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const entered = new Promise<AdapterRequest>((resolve) => arrivals.push(resolve));
      const open = () => {
        gate = undefined;
        release();
      };
      // A test that fails while a call waits must not leave it waiting.
      onTestFinished(open);
      return { entered, release: open };
    },
  };
  return core;
}

export interface ServeProjectOptions {
  /** More of the project file, after `systems:` (e.g. a `serve:` block). */
  config?: string;
  /** Files that replace or add to the served integrations. */
  files?: Record<string, string>;
}

/**
 * The project file's rest with `serve.workers: 0`: the fake core lives in this thread, which a module adapter
 * in a worker thread would not see (test/serve/workers.test.ts serves through workers).
 */
function inThread(config: string): string {
  return config.includes("serve:")
    ? config.replace("serve:\n", "serve:\n  workers: 0\n")
    : `${config}serve:\n  workers: 0\n`;
}

/**
 * A temp project of the served integrations. Its system `core` is a module adapter that hands every call to
 * `core` (the module finds it through a global named for this project, so parallel projects never meet).
 */
export function createServeProject(core: FakeCore, options: ServeProjectOptions = {}): string {
  const key = `bass-serve-test-${randomUUID()}`;
  (globalThis as Record<string, unknown>)[key] = core;
  onTestFinished(() => {
    delete (globalThis as Record<string, unknown>)[key];
  });
  return createTempDir({
    "bass.config.yaml": `systems:\n  core:\n    adapter: ./core.mjs\n${inThread(options.config ?? "")}`,
    "core.mjs": `export function execute(request, config, context) {\n  return globalThis[${JSON.stringify(key)}].execute(request, context);\n}\n`,
    ...servedIntegrations,
    ...options.files,
  });
}
