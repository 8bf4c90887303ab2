import { type ChildProcess, execFile, spawn } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { createTempDir, freePort, runCli } from "../_helpers.js";
import { spawnServe } from "./_serve-process.js";

// The contract of the samples: the OpenAPI document `bass openapi` writes passes Spectral's and Redocly's
// linters, and Prism, a contract-testing proxy, finds every answer serve gives in it (SPEC §13.2).
const root = join(import.meta.dirname, "../..");
const tool = (name: string) => join(root, "node_modules", ".bin", name);
const run = promisify(execFile);

/** A copy of the samples (their own .bass left behind) and the document of what serve answers on it. */
async function samplesWithDocument(): Promise<{ dir: string; document: string }> {
  const dir = createTempDir();
  cpSync(join(root, "samples"), dir, { recursive: true, filter: (source) => !source.includes(".bass") });
  const document = join(dir, "openapi.json");
  const written = await runCli(["openapi", "--project", dir, "--out", document], { cwd: dir });
  expect(written.code, written.stderr).toBe(0);
  return { dir, document };
}

/** `prism proxy DOCUMENT UPSTREAM --errors` on a free port, once it listens; what it logged. */
async function startPrism(document: string, upstream: string) {
  const port = await freePort();
  const child: ChildProcess = spawn(
    tool("prism"),
    ["proxy", document, upstream, "--errors", "--host", "127.0.0.1", "--port", String(port)],
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
});
