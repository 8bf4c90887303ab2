import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { copySamples, createTempDir, freePort, runCli } from "../_helpers.js";
import { spawnServe } from "./_serve-process.js";

// The contract of the samples: the OpenAPI document `bass openapi` writes passes Spectral's and Redocly's
// linters, and Prism, a contract-testing proxy, finds every answer serve gives in it (SPEC §13.2).
const root = join(import.meta.dirname, "../..");
const tool = (name: string) => join(root, "node_modules", ".bin", name);
const run = promisify(execFile);

/** A copy of the samples (their own .bass left behind) and the document of what serve answers on it. */
async function samplesWithDocument(): Promise<{ dir: string; document: string }> {
  const dir = createTempDir();
  copySamples(dir);
  const document = join(dir, "openapi.json");
  const written = await runCli(["openapi", "--project", dir, "--out", document], { cwd: dir });
  expect(written.code, written.stderr).toBe(0);
  // A command that writes a file says so.
  expect(written.stderr).toBe(`wrote ${document} (6 operations of 6 integrations)\n`);
  return { dir, document };
}

/**
 * `prism proxy DOCUMENT UPSTREAM` on a free port, once it listens; what it logged. With `errors`, Prism
 * answers a request or a response outside the document itself; without, it forwards the request anyway
 * and only logs, so that serve's own answers to bad requests are checked too.
 */
async function startPrism(document: string, upstream: string, { errors = true } = {}) {
  const port = await freePort();
  const child: ChildProcess = spawn(
    tool("prism"),
    [
      "proxy",
      document,
      upstream,
      ...(errors ? ["--errors"] : []),
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  onTestFinished(() => {
    child.kill("SIGKILL");
  });
  let log = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    log += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    log += chunk.toString("utf8");
  });
  const startedAt = Date.now();
  while (!log.includes("Prism is listening")) {
    if (Date.now() - startedAt > 30_000 || child.exitCode !== null)
      throw new Error(`prism did not start:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `http://127.0.0.1:${port}`, log: () => log };
}

const base = "/api/v1/core-processor";
const json = { "content-type": "application/json" };
/** The five operations and their error cases, each with the status serve answers. */
const cases: [string, string, string, RequestInit, number][] = [
  ["a customer", "GET", `${base}/customers?customer_id=P000001`, {}, 200],
  ["an unknown customer", "GET", `${base}/customers?customer_id=P999999`, {}, 404],
  [
    "a new customer",
    "POST",
    `${base}/customers`,
    {
      headers: json,
      body: JSON.stringify({
        first_name: "Ada",
        last_name: "Lovelace",
        email: "ada@example.com",
        date_of_birth: "1990-12-10",
        tax_id: "123-45-6789",
      }),
    },
    201,
  ],
  ["a customer without fields", "POST", `${base}/customers`, { headers: json, body: "{}" }, 422],
  ...(
    [
      ["a new account", "P000001", 201],
      ["an account for an unknown customer", "P999999", 404],
    ] as const
  ).map(([name, customer, status]): [string, string, string, RequestInit, number] => [
    name,
    "POST",
    `${base}/deposit-accounts`,
    {
      headers: json,
      body: JSON.stringify({ customer_id: customer, product_type: "checking", currency: "USD" }),
    },
    status,
  ]),
  ...(["1.00", "99999999.00", "abc"] as const).map(
    (amount, index): [string, string, string, RequestInit, number] => [
      ["a transfer", "a transfer without the funds", "a transfer of a bad amount"][index] as string,
      "POST",
      `${base}/monetary-internal-transfers`,
      {
        headers: { ...json, "idempotency-key": `contract-${index}` },
        body: JSON.stringify({
          from_account_number: "1000000001",
          to_account_number: "1000000002",
          amount,
          currency: "USD",
        }),
      },
      [201, 422, 422][index] as number,
    ],
  ),
  [
    "a page of transactions",
    "GET",
    `${base}/monetary-transactions?account_number=1000000001&limit=2`,
    {},
    200,
  ],
  ["transactions of an unknown account", "GET", `${base}/monetary-transactions?account_number=9`, {}, 404],
];

describe("the samples' OpenAPI document", () => {
  it("passes spectral lint (spectral:oas) and redocly lint with no error", async () => {
    const { dir, document } = await samplesWithDocument();
    const ruleset = join(dir, ".spectral.yaml");
    writeFileSync(ruleset, 'extends: ["spectral:oas"]\n');
    const spectral = await run(tool("spectral"), [
      "lint",
      "-r",
      ruleset,
      "--fail-severity",
      "error",
      document,
    ]).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(spectral, spectral.stdout).not.toHaveProperty("failed");
    const redocly = await run(tool("redocly"), ["lint", document], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    }).catch((error: { stdout: string; stderr: string }) => ({
      stdout: `${error.stdout}${error.stderr}`,
      failed: true,
    }));
    expect(redocly, redocly.stdout).not.toHaveProperty("failed");
  }, 60_000);

  it("holds every answer serve gives, as Prism in front of serve finds", async () => {
    const { dir, document } = await samplesWithDocument();
    const serve = await spawnServe(dir);
    const prism = await startPrism(document, serve.url);
    for (const [name, method, path, init, status] of cases) {
      const response = await fetch(prism.url + path, { method, ...init });
      const body = await response.text();
      expect(`${name}: ${response.status}`, body).toBe(`${name}: ${status}`);
      expect(response.headers.get("content-type"), name).toContain("application/json");
    }
    expect(prism.log()).not.toMatch(/violation/i);
  }, 90_000);

  it("makes Prism report an answer the document does not hold, so the check above can fail", async () => {
    const { dir, document } = await samplesWithDocument();
    const changed = JSON.parse(readFileSync(document, "utf8"));
    changed.paths[`${base}/customers`].get.responses["200"].content["application/json"].schema.required.push(
      "nickname",
    );
    writeFileSync(document, JSON.stringify(changed));
    const serve = await spawnServe(dir);
    const prism = await startPrism(document, serve.url);
    const response = await fetch(`${prism.url}${base}/customers?customer_id=P000001`);
    expect(response.status).toBe(500);
    expect(await response.text()).toContain("nickname");
  }, 90_000);

  it("says a missing query parameter is one, as serve does", async () => {
    const { dir, document } = await samplesWithDocument();
    const serve = await spawnServe(dir);
    const direct = await fetch(`${serve.url}${base}/customers`);
    expect(direct.status).toBe(400);
    expect(direct.headers.get("content-type")).toBe("application/problem+json");
    const prism = await startPrism(document, serve.url);
    const proxied = await fetch(`${prism.url}${base}/customers`);
    expect(proxied.status).toBe(422);
    expect(await proxied.text()).toContain("customer_id");
  }, 90_000);

  it("holds serve's own answers too: problems, replays, the runs' errors, auth and an async start", async () => {
    const { dir } = await samplesWithDocument();
    // A bearer token, and an asynchronous integration beside the samples: serve's 401s and 202 as well.
    const config = join(dir, "bass.config.yaml");
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace(
        "auth: { type: none }",
        'auth: { type: bearer, tokens: ["${env:CONTRACT_TOKEN}"] }',
      ),
    );
    writeFileSync(
      join(dir, "integrations", "reports.create.yaml"),
      'name: reports.create\nrun_async: true\nendpoints:\n  - method: POST\n    path: /reports\non_success_hook: "output.payload = { ok: true }"\n',
    );
    const document = join(dir, "openapi.json");
    const env = { CONTRACT_TOKEN: "contract-token" };
    const written = await runCli(["openapi", "--project", dir, "--out", document], { cwd: dir, env });
    expect(written.code, written.stderr).toBe(0);
    const serve = await spawnServe(dir, env);
    const prism = await startPrism(document, serve.url, { errors: false });
    const auth = { authorization: "Bearer contract-token" };
    const transfer = (amount: string) =>
      JSON.stringify({
        from_account_number: "1000000001",
        to_account_number: "1000000002",
        amount,
        currency: "USD",
      });
    const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
      fetch(prism.url + path, { method, headers, ...(body === undefined ? {} : { body }) });
    // A transfer with an Idempotency-Key, as a client that retries sends it.
    const keyed = (key: string, amount: string) =>
      send(
        "POST",
        `${base}/monetary-internal-transfers`,
        { ...auth, ...json, "idempotency-key": key },
        transfer(amount),
      );
    const answers: [string, Response, number][] = [
      ["no token", await send("GET", `${base}/customers?customer_id=P000001`, {}), 401],
      [
        "a wrong token",
        await send("GET", `${base}/customers?customer_id=P000001`, { authorization: "Bearer x" }),
        401,
      ],
      [
        "a body of the wrong shape",
        await send("POST", `${base}/customers`, { ...auth, ...json }, '{"first_name":1}'),
        400,
      ],
      [
        "a body that is not JSON",
        await send("POST", `${base}/customers`, { ...auth, ...json }, "not json"),
        400,
      ],

      ["a bad Idempotency-Key", await keyed("x".repeat(65), "1.00"), 400],
      ["a keyed transfer", await keyed("k1", "1.00"), 201],
      ["the same, replayed", await keyed("k1", "1.00"), 201],
      ["the key with another body", await keyed("k1", "2.00"), 422],
      [
        "an onboarding without a product",
        await send("POST", `${base}/onboardings`, { ...auth, ...json }, "{}"),
        422,
      ],
      ["an async start", await send("POST", "/reports", { ...auth, ...json }, "{}"), 202],
    ];
    for (const [name, response, status] of answers) {
      expect(`${name}: ${response.status}`, await response.text()).toBe(`${name}: ${status}`);
    }
    const [, wrong] = answers[1] as [string, Response, number];
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer realm="bass", error="invalid_token"');
    expect((answers[6] as [string, Response, number])[1].headers.get("idempotent-replayed")).toBe("true");
    expect((answers[9] as [string, Response, number])[1].headers.get("location")).toMatch(
      /^\/_bass\/runs\/[0-9A-Z]{26}$/,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(prism.log()).toContain("Violation: request");
    expect(prism.log()).not.toMatch(/Violation: response/);
  }, 90_000);

  it("serves a document with its server, that a typed client reads success fields from", async () => {
    const { dir } = await samplesWithDocument();
    const serve = await spawnServe(dir);
    const served = await (await fetch(`${serve.url}/_bass/openapi.json`)).json();
    expect(served.servers).toEqual([{ url: serve.url }]);
    const document = join(dir, "served.json");
    writeFileSync(document, JSON.stringify(served));
    const types = join(dir, "client", "api.ts");
    await run(tool("openapi-typescript"), [document, "-o", types]);
    writeFileSync(
      join(dir, "client", "client.ts"),
      `import type { paths } from "./api.js";
type Created = paths["/api/v1/core-processor/customers"]["post"]["responses"]["201"]["content"]["application/json"];
export const idOf = (created: Created): string => created.customer_id;
type Page = paths["/api/v1/core-processor/monetary-transactions"]["get"]["responses"]["200"]["content"]["application/json"];
export const firstAmount = (page: Page): string | undefined => page.transactions[0]?.amount;
`,
    );
    writeFileSync(
      join(dir, "client", "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: "nodenext", target: "es2022" },
        files: ["client.ts"],
      }),
    );
    const compiled = await run(tool("tsc"), ["-p", join(dir, "client", "tsconfig.json")]).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
    );
    expect(compiled, compiled.stdout).not.toHaveProperty("failed");
  }, 90_000);
});
