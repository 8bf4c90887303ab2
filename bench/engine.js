import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { median } from "./lib.js";

const dist = new URL("../dist/", import.meta.url);

/** The integration the engine runs: one echo call, three field mappings, an INPUT mask and rule, a hook. */
const DEFINITION = `name: bench.engine
description: The engine bench integration
masks:
  - type: INPUT
    field: tax_id
validation_rules:
  - type: INPUT
    field: input.payload.email
    rule: typeof _ === 'string' && _.includes('@')
    message: email must be an e-mail address
service_requests:
  - formula_variable: person
    system: echo
    service_name: create-person
    field_mappings:
      - field: firstName
        value: input.payload.first_name.trim()
      - field: email
        value: input.payload.email
      - field: taxId
        value: input.payload.tax_id
on_success_hook: |
  const created = person.response.payload
  output.status = 201
  output.payload = { first_name: created.firstName, email: created.email }
`;

const PAYLOAD = { first_name: " Grace ", email: "grace.hopper@example.com", tax_id: "123-45-6789" };

/**
 * Engine throughput: sequential, awaited in-process runs of one small integration (DEFINITION) on one
 * core, compiled once. The baseline is a bare async function doing the same work by
 * hand (a structuredClone of the input for the record, the mask, the rule, the request and output
 * objects, an awaited echo), so the ratio is what the engine's pipeline, namespaces and record cost.
 * After a warm-up of 2000 runs each, timed rounds of 1 s of the two alternate; each value is the median
 * rate of the rounds. Every run must end in success.
 */
export async function measureEngine({ rounds = 5, roundMs = 1000, warmup = 2_000 } = {}) {
  const { openProject } = await import(new URL("project/open.js", dist));
  const { runIntegration } = await import(new URL("engine/run.js", dist));
  const { echoAdapter } = await import(new URL("adapters/echo.js", dist));

  const root = mkdtempSync(join(tmpdir(), "bass-bench-engine-"));
  let integration;
  try {
    mkdirSync(join(root, "integrations"));
    writeFileSync(
      join(root, "bass.config.yaml"),
      "integrations: integrations\nsystems:\n  echo:\n    adapter: echo\n",
    );
    writeFileSync(join(root, "integrations", "bench.engine.yaml"), DEFINITION);
    const project = await openProject({ cwd: root, env: {}, projectDir: root });
    if (project.issues.length || project.definitions.length !== 1) {
      throw new Error(
        `the engine bench project does not validate clean:\n${JSON.stringify(project.issues, null, 2)}`,
      );
    }
    integration = project.compile(project.definitions[0]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  const options = {
    adapters: () => echoAdapter,
    trigger: "test",
    cellTimeoutMs: 1000,
    runTimeoutMs: 30000,
    secrets: [],
  };
  const engineRun = () => runIntegration(integration, { payload: PAYLOAD }, options);
  const bareRun = () => runByHand({ payload: PAYLOAD });
  assertSameOutput(await engineRun(), await bareRun());

  await timeRuns(engineRun, { runs: warmup });
  await timeRuns(bareRun, { runs: warmup });
  const engineRates = [];
  const bareRates = [];
  for (let round = 0; round < rounds; round++) {
    engineRates.push(await timeRuns(engineRun, { ms: roundMs }));
    bareRates.push(await timeRuns(bareRun, { ms: roundMs }));
  }
  const engine = median(engineRates);
  const bare = median(bareRates);
  const spread = (rates) => `${Math.round(Math.min(...rates))}–${Math.round(Math.max(...rates))}`;
  return [
    {
      name: "engine, runs per second",
      value: engine,
      unit: "runs/s",
      baseline: { value: bare, label: "bare async fn" },
      goal: { text: "80000 runs/s or more", min: 80_000, of: "value" },
      note: `one engine run costs ${(bare / engine).toFixed(1)}× a bare function doing the same work by hand (${(1000 / engine).toFixed(3)} ms against ${(1000 / bare).toFixed(3)} ms; 1 echo call, 3 mappings, 1 INPUT mask, 1 INPUT rule, on_success_hook; sequential awaited runs on one core after ${warmup} warm-up runs; medians of ${rounds} rounds of ${roundMs / 1000} s each, alternating; engine rounds ${spread(engineRates)} runs/s, bare ${spread(bareRates)} runs/s)`,
    },
  ];
}

/** Runs per clock check: few enough to stop close to the end of a round, enough that the clock costs nothing. */
const BATCH = 200;

/**
 * Runs `run` again and again, each run awaited before the next, either `runs` times or in batches until
 * `ms` have passed (so that a slow, loaded machine still keeps to the bench's time). Throws unless every
 * run ended in success. Returns runs per second.
 */
async function timeRuns(run, { runs = Number.POSITIVE_INFINITY, ms = Number.POSITIVE_INFINITY }) {
  const started = performance.now();
  let count = 0;
  let elapsed = 0;
  while (count < runs && elapsed < ms) {
    for (const end = Math.min(count + BATCH, runs); count < end; ) {
      const result = await run();
      count++;
      if (result.status !== "success") {
        throw new Error(
          `run ${count} ended in ${result.status}:\n${JSON.stringify(result.record, null, 2).slice(0, 4000)}`,
        );
      }
    }
    elapsed = performance.now() - started;
  }
  return (count * 1000) / elapsed;
}

const echo = async (request) => ({ success: true, payload: request.payload, messages: [] });

/** DEFINITION written out by hand in plain JavaScript: the work a run has to do at the least. */
async function runByHand(input) {
  const recorded = structuredClone(input);
  recorded.payload.tax_id = "X".repeat(recorded.payload.tax_id.length);
  const { email } = input.payload;
  if (!(typeof email === "string" && email.includes("@"))) {
    return { status: "failure", record: ["email must be an e-mail address"] };
  }
  const request = {
    service_name: "create-person",
    payload: { firstName: input.payload.first_name.trim(), email, taxId: input.payload.tax_id },
  };
  const response = await echo(request);
  const created = response.payload;
  const output = {
    status: 201,
    headers: {},
    payload: { first_name: created.firstName, email: created.email },
  };
  return { status: "success", output, record: [recorded, request, response, { ...output }] };
}

/** Fails the bench unless the engine and the hand-written baseline answer alike, so they do the same work. */
function assertSameOutput(engine, bare) {
  const shown = (result) => JSON.stringify({ status: result.status, output: result.output });
  if (shown(engine) !== shown(bare)) {
    throw new Error(
      `the engine and the bare baseline answer differently: ${shown(engine)} against ${shown(bare)}`,
    );
  }
}
