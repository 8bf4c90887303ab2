import { describe, expect, it } from "vitest";
import { runIntegration } from "../../src/engine/run.js";
import type { RunInput, RunRecord } from "../../src/engine/types.js";
import { createProjectAdapters } from "../../src/project/adapters.js";
import { createCallintRunner } from "../../src/project/callint.js";
import { openProjectFiles } from "../../src/project/open-files.js";
import { createTempDir, runCli } from "../_helpers.js";

/** Runs `name` of a project made of `files`, its callint children in this thread; every record made. */
async function runProject(files: Record<string, string>, name: string, input: RunInput = { payload: {} }) {
  const dir = createTempDir({ "bass.config.yaml": "systems: {}\n", ...files });
  const { project } = openProjectFiles({ cwd: dir, env: {} });
  const adapters = createProjectAdapters(project);
  const resolve = await adapters.resolverFor({ kind: "live" });
  const records: RunRecord[] = [];
  const children = createCallintRunner(project, {
    adapters: resolve,
    keep: (record) => records.push(record),
  });
  const loaded = project.definitions.find((definition) => definition.value.name === name);
  if (!loaded) throw new Error(`no ${name}`);
  const result = await runIntegration(project.compile(loaded), input, {
    ...project.limits,
    adapters: resolve,
    trigger: "cli",
    secrets: project.secrets,
    callint: children.run,
  });
  await children.settled();
  await adapters.close();
  return { result, children: records };
}

const greet = `name: greet
on_success_hook: |
  output.status = 201
  output.headers = { "x-greeting": "yes" }
  output.payload = { hello: input.payload.name, method: input.method, path: input.path, params: input.params }
`;

describe("callint", () => {
  it("runs another integration as a run of its own and answers its output; the parent gets a CALLINT item", async () => {
    const { result, children } = await runProject(
      {
        "integrations/greet.yaml": greet,
        "integrations/front.yaml": `name: front
on_success_hook: |
  const answer = await callint('greet', { name: 'Ada' })
  output.payload = answer
`,
      },
      "front",
    );
    expect(result.output.payload).toEqual({
      status: 201,
      headers: { "x-greeting": "yes" },
      payload: { hello: "Ada", method: "POST", path: {}, params: {} },
    });
    const [child] = children;
    expect(child).toMatchObject({
      integration: "greet",
      trigger: "callint",
      parent_run: result.runId,
      status: "success",
    });
    expect(result.record.items.find((item) => item.kind === "CALLINT")).toEqual({
      seq: expect.any(Number),
      at: expect.any(String),
      kind: "CALLINT",
      run_id: child?.id,
      integration: "greet",
      status: "success",
      duration_ms: expect.any(Number),
    });
  });

  it("takes an envelope with extended, and shows a sync child its parent's namespace, read-only", async () => {
    const { result, children } = await runProject(
      {
        "integrations/greet.yaml": `name: greet
on_success_hook: |
  let wrote = true
  try { parentint.input.payload.note = 'changed' } catch { wrote = false }
  output.payload = { method: input.method, params: input.params, from: parentint.input.payload.note, wrote }
`,
        "integrations/front.yaml": `name: front
on_success_hook: |
  output.payload = (await callint('greet', { method: 'GET', params: { q: 'x' }, payload: {} }, { extended: true })).payload
`,
      },
      "front",
      { payload: { note: "from the parent" } },
    );
    expect(result.output.payload).toEqual({
      method: "GET",
      params: { q: "x" },
      from: "from the parent",
      wrote: false,
    });
    expect(children[0]?.status).toBe("success");
  });

  it("answers 202 at once in async mode; the child goes on and its records follow", async () => {
    const { result, children } = await runProject(
      {
        "integrations/greet.yaml": greet,
        "integrations/front.yaml": `name: front
on_success_hook: |
  output.payload = await callint('greet', { name: 'Ada' }, { mode: 'async' })
`,
      },
      "front",
    );
    const answer = result.output.payload as { status: number; payload: { run_id: string; status: string } };
    expect(answer.status).toBe(202);
    expect(answer.payload).toEqual({ run_id: expect.any(String), status: "started" });
    expect(children.map((record) => [record.id, record.status])).toEqual([
      [answer.payload.run_id, "running"],
      [answer.payload.run_id, "success"],
    ]);
  });

  it("stops a chain deeper than 10 with a callint_depth failure", async () => {
    const { result, children } = await runProject(
      {
        "integrations/deeper.yaml": `name: deeper
on_success_hook: |
  const answer = await callint('deeper', {})
  output.payload = { below: answer.status }
`,
      },
      "deeper",
    );
    expect(children).toHaveLength(10);
    const failures = [result.record, ...children].flatMap((record) =>
      record.items.flatMap((item) => (item.kind === "FAILURE" ? [item.error.code] : [])),
    );
    expect(failures).toEqual(["callint_depth"]);
    // The deepest run failed; each above it answered with what it got.
    expect(result.output.payload).toEqual({ below: 200 });
  });

  it("masks in the child's record what the parent masks", async () => {
    const { children } = await runProject(
      {
        "integrations/greet.yaml": greet,
        "integrations/front.yaml": `name: front
masks:
  - type: INPUT
    field: tax_id
on_success_hook: |
  await callint('greet', { name: input.payload.tax_id })
`,
      },
      "front",
      { payload: { tax_id: "123-45-6789" } },
    );
    expect(JSON.stringify(children)).not.toContain("123-45-6789");
    expect(JSON.stringify(children)).toContain("XXXXXXXXXXXX");
  });

  it("fails the calling cell for an integration the project does not have, naming the nearest", async () => {
    const { result, children } = await runProject(
      {
        "integrations/greet.yaml": greet,
        "integrations/front.yaml": "name: front\non_success_hook: \"await callint('gret', {})\"\n",
      },
      "front",
    );
    expect(children).toEqual([]);
    const failure = result.record.items.find((item) => item.kind === "FAILURE");
    expect(failure?.kind === "FAILURE" && failure.error.message).toMatch(/no integration named gret .*greet/);
  });

  it("gives the child only what is left of the parent's time", async () => {
    const { result, children } = await runProject(
      {
        "slow.mjs":
          "export async function execute() {\n  await new Promise((resolve) => setTimeout(resolve, 2000));\n  return { success: true, status: 200, payload: {}, messages: [] };\n}\n",
        "bass.config.yaml": "systems:\n  slow:\n    adapter: ./slow.mjs\n",
        "integrations/slow.yaml":
          "name: slow\ntimeout_ms: 5000\nservice_requests:\n  - formula_variable: wait\n    system: slow\n    service_name: wait\n",
        "integrations/front.yaml": `name: front
timeout_ms: 300
service_requests:
  - formula_variable: first
    system: slow
    service_name: wait
    call_if: "(keep({ answer: await callint('slow', {}) }), false)"
on_success_hook: "output.payload = answer"
`,
      },
      "front",
    );
    expect(children[0]?.duration_ms).toBeLessThan(1500);
    expect(children[0]?.items.at(-1)).toMatchObject({ kind: "OUTPUT", data: { status: 504 } });
    // The parent ran out of the same time.
    expect(result.output.status).toBe(504);
  });
});

describe("callint from the terminal", () => {
  it("bass run loads the integrations a run calls, shows the CALLINT item, and keeps the child's record", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/greet.yaml": greet,
      "integrations/front.yaml":
        "name: front\non_success_hook: \"output.payload = (await callint('greet', { name: 'Ada' })).payload\"\n",
    });
    const run = await runCli(["run", "front"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/─ 2 CALLINT +greet success \d+ ms run \w{26}\n/);
    const listed = await runCli(["history", "--trigger", "callint", "--json"], { cwd: dir });
    const [child] = JSON.parse(listed.stdout) as RunRecord[];
    expect(child).toMatchObject({ integration: "greet", trigger: "callint", status: "success" });
    expect(run.stdout.startsWith(child?.parent_run as string)).toBe(true);
  });
});

describe("calladapter", () => {
  it("calls a system from a cell, answers { request, response }, and records a REQUEST item", async () => {
    const { result } = await runProject(
      {
        "bass.config.yaml": "systems:\n  transform:\n    adapter: echo\n",
        "integrations/front.yaml": `name: front
on_success_hook: |
  const call = await calladapter('transform', 'shout', { word: 'hi' }, { label: 'loud' })
  const missing = await calladapter('nowhere', 'x', {})
  output.payload = { sent: call.request, ok: call.response.success, missing: missing.response.success }
`,
      },
      "front",
    );
    expect(result.output.payload).toEqual({
      sent: { service_name: "shout", payload: { word: "hi" } },
      ok: true,
      missing: false,
    });
    const requests = result.record.items.flatMap((item) => (item.kind === "REQUEST" ? [item] : []));
    expect(requests.map((item) => [item.label, item.request.service_name, item.response?.success])).toEqual([
      ["loud", "shout", true],
      ["x", "x", false],
    ]);
  });
});

describe("bass validate on callint", () => {
  it("finds a callint of an integration the project does not have, at its line, only in a whole project", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/greet.yaml": greet,
      "integrations/front.yaml":
        "name: front\non_success_hook: |\n  await callint('greet', {})\n  await callint('gret', {})\n",
    });
    const whole = await runCli(["validate", "--format", "json"], { cwd: dir });
    expect(whole.code).toBe(1);
    expect(JSON.parse(whole.stdout).findings).toEqual([
      {
        file: "integrations/front.yaml",
        line: 4,
        column: 17,
        severity: "error",
        rule: "unknown-integration",
        message: expect.stringMatching(
          /^on_success_hook: callint names no integration "gret" of the project; did you mean "greet"\?/,
        ),
      },
    ]);
    // One file alone does not tell which integrations the project has.
    expect((await runCli(["validate", "integrations/front.yaml"], { cwd: dir })).code).toBe(0);
  });
});
