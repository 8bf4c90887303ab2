import { describe, expect, it } from "vitest";
import { loadModuleAdapter } from "../../src/adapters/module.js";
import type { SystemConfig } from "../../src/definition/types.js";
import { BassError } from "../../src/errors.js";
import { createTempDir } from "../_helpers.js";
import { callContext } from "./_server.js";

const config: SystemConfig = { adapter: "./adapters/ledger.mjs", options: { branch: "B-7" } };
const system = { name: "ledger", config };
const request = { service_name: "post", payload: { amount: "10.00" } };

/** A project folder holding one module adapter at adapters/ledger.mjs. */
function projectWith(source: string): string {
  return createTempDir({ "adapters/ledger.mjs": source });
}

async function loadError(specifier: string, projectDir: string): Promise<BassError> {
  const error = await loadModuleAdapter(specifier, projectDir, system).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(BassError);
  expect((error as BassError).code).toBe("ADAPTER_UNAVAILABLE");
  return error as BassError;
}

describe("module adapters", () => {
  it("calls execute(request, config, context) and answers what it returns", async () => {
    const dir = projectWith(`
      export async function execute(request, config, context) {
        return {
          success: true,
          status: 201,
          payload: { got: request.payload, branch: config.options.branch, fv: context.formulaVariable },
          messages: ["posted"],
        };
      }`);
    const adapter = await loadModuleAdapter("./adapters/ledger.mjs", dir, system);
    expect(await adapter.execute(request, callContext())).toEqual({
      success: true,
      status: 201,
      payload: { got: { amount: "10.00" }, branch: "B-7", fv: "core_call" },
      messages: ["posted"],
    });
  });

  it("loads a path relative to the project folder, also without ./", async () => {
    const dir = createTempDir({
      "lib/package.json": '{ "type": "module" }',
      "lib/plain.js": "export const execute = () => ({ success: false, payload: 1, messages: 'no funds' });",
    });
    const adapter = await loadModuleAdapter("lib/plain.js", dir, system);
    expect(await adapter.execute(request, callContext())).toEqual({
      success: false,
      status: undefined,
      payload: 1,
      messages: ["no funds"],
    });
  });

  it("answers a throw as a failure with its message", async () => {
    const dir = projectWith("export function execute() { throw new Error('ledger offline'); }");
    const adapter = await loadModuleAdapter("./adapters/ledger.mjs", dir, system);
    expect(await adapter.execute(request, callContext())).toEqual({
      success: false,
      payload: null,
      messages: ["system ledger: adapter module ./adapters/ledger.mjs threw: ledger offline"],
    });
  });

  it("answers a rejected promise as a failure", async () => {
    const dir = projectWith("export async function execute() { throw 'plain string'; }");
    const adapter = await loadModuleAdapter("./adapters/ledger.mjs", dir, system);
    const response = await adapter.execute(request, callContext());
    expect(response.success).toBe(false);
    expect(response.messages).toEqual([
      "system ledger: adapter module ./adapters/ledger.mjs threw: plain string",
    ]);
  });

  it.each([
    ["42", "answered number"],
    ["null", "answered null"],
    ["undefined", "answered undefined"],
    ["[1, 2]", "answered object"],
    ["({ payload: 1 })", "without success"],
    ["({ success: 'yes' })", "without success"],
  ])("fails an answer of %s", async (answer, problem) => {
    const dir = projectWith(`export function execute() { return ${answer}; }`);
    const adapter = await loadModuleAdapter("./adapters/ledger.mjs", dir, system);
    const response = await adapter.execute(request, callContext());
    expect(response).toMatchObject({ success: false, payload: null });
    expect(response.messages).toHaveLength(1);
    expect(response.messages[0]).toContain(problem);
  });

  it("normalizes the parts of an answer", async () => {
    const dir = projectWith(
      "export function execute() { return { success: true, status: 2.5, messages: [1, 'two'], extra: 'x' }; }",
    );
    const adapter = await loadModuleAdapter("./adapters/ledger.mjs", dir, system);
    expect(await adapter.execute(request, callContext())).toEqual({
      success: true,
      status: undefined,
      payload: null,
      messages: ["1", "two"],
    });
  });

  it("refuses a missing file, naming the system and the path", async () => {
    const error = await loadError("./adapters/missing.mjs", createTempDir());
    expect(error.message).toContain("system ledger");
    expect(error.message).toContain("./adapters/missing.mjs");
    expect(error.message).toContain("not found");
  });

  it("refuses a module without execute", async () => {
    const dir = projectWith("export function run() {}\nexport const execute = 'not a function';");
    const error = await loadError("./adapters/ledger.mjs", dir);
    expect(error.message).toMatch(
      /^system ledger: adapter module \.\/adapters\/ledger\.mjs .*exports no function execute/,
    );
  });

  it("refuses a module that does not load", async () => {
    const error = await loadError("./adapters/ledger.mjs", projectWith("export function execute( {"));
    expect(error.message).toMatch(
      /^system ledger: adapter module \.\/adapters\/ledger\.mjs cannot be loaded: /,
    );
  });
});
