import { execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { copySamples, createTempDir, runCli } from "./_helpers.js";

const bin = join(import.meta.dirname, "..", "bin", "bass.cjs");

/** A fresh copy of samples/: its own history and its own mock core data file. */
function samplesCopy(): string {
  const dir = createTempDir();
  copySamples(dir);
  return dir;
}

function write(dir: string, file: string, value: unknown): string {
  writeFileSync(join(dir, file), JSON.stringify(value));
  return file;
}

async function run(
  dir: string,
  name: string,
  input: string,
  extra: string[] = [],
  env: Record<string, string> = {},
) {
  const envelope = name.endsWith(".retrieve") ? ["--input-envelope"] : [];
  const result = await runCli(
    ["run", name, "--project", dir, ...envelope, "--input", input, ...extra, "--json"],
    {
      cwd: dir,
      env: { NO_COLOR: "1", ...env },
    },
  );
  return { ...result, printed: result.stdout ? JSON.parse(result.stdout) : undefined };
}

describe("the five samples over real HTTP against the embedded mock core (base_url: mockcore:)", () => {
  it.each([
    [
      "customers.retrieve",
      200,
      { customer_id: "P000001", first_name: "Ada", status: "active", tax_id_last4: "3333" },
    ],
    ["monetary-transactions.retrieve", 200, { account_number: "1000000001", total: 3 }],
    ["customers.create", 201, { customer_id: "P000042", status: "active" }],
    ["deposit-accounts.create", 201, { account_number: "1000000042", product_type: "savings" }],
    ["monetary-internal-transfers.create", 201, { status: "posted", amount: "150.00", currency: "USD" }],
  ])("runs %s to its documented answer", async (name, status, fields) => {
    const dir = samplesCopy();
    const { code, stderr, printed } = await run(dir, name, `inputs/${name}.json`);
    expect(stderr).toBe("");
    expect(printed.output.status).toBe(status);
    expect(printed.output.payload).toMatchObject(fields);
    const request = printed.history.items.find((item: { kind: string }) => item.kind === "REQUEST");
    expect(request.response.success).toBe(true);
    expect(code).toBe(0);
  });

  it.each([
    [
      "customers.retrieve",
      { payload: {}, method: "GET", params: { customer_id: "P999999" } },
      404,
      "not_found",
    ],
    [
      "monetary-transactions.retrieve",
      { payload: {}, method: "GET", params: { account_number: "1999999999" } },
      404,
      "not_found",
    ],
    [
      "monetary-internal-transfers.create",
      {
        from_account_number: "1000000001",
        to_account_number: "1000000002",
        amount: "99999.00",
        currency: "USD",
      },
      422,
      "insufficient_funds",
    ],
    [
      "monetary-internal-transfers.create",
      { from_account_number: "1000000404", to_account_number: "1000000002", amount: "1.00", currency: "USD" },
      404,
      "not_found",
    ],
  ])("turns a core error of %s into the documented answer %#", async (name, input, status, errorCode) => {
    const dir = samplesCopy();
    const { code, printed } = await run(dir, name, write(dir, "input.json", input));
    expect(printed.output.status).toBe(status);
    expect(printed.output.payload.error.code).toBe(errorCode);
    expect(code).toBe(1);
  });

  it("moves money once: the ledger keeps both legs in its data file across runs", async () => {
    const dir = samplesCopy();
    const transfer = (key: string) =>
      write(dir, `${key}.json`, {
        payload: {
          from_account_number: "1000000001",
          to_account_number: "1000000002",
          amount: "150.00",
          currency: "USD",
        },
        headers: { "Idempotency-Key": key },
      });
    const first = await run(dir, "monetary-internal-transfers.create", transfer("k1"), ["--input-envelope"]);
    const again = await run(dir, "monetary-internal-transfers.create", transfer("k1"), ["--input-envelope"]);
    expect(again.printed.output.payload.transfer_id).toBe(first.printed.output.payload.transfer_id);
    const data = JSON.parse(readFileSync(join(dir, ".bass", "mockcore.json"), "utf8"));
    expect(JSON.stringify(data)).toContain("2200.00");
  });
});

describe("the samples against bass mockcore started alone, with CORE_URL", () => {
  it("creates a customer, opens an account and moves money over the core's own port", async () => {
    const core = spawn(process.execPath, [bin, "mockcore", "--port", "0"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    onTestFinished(() => void core.kill("SIGTERM"));
    const url = await new Promise<string>((resolve) =>
      core.stdout.on("data", (chunk: Buffer) => {
        const found = /http:\/\/[\d.]+:\d+/.exec(chunk.toString());
        if (found) resolve(found[0]);
      }),
    );
    const dir = samplesCopy();
    const env = { CORE_URL: url };
    const created = await run(dir, "customers.create", "inputs/customers.create.json", [], env);
    expect(created.printed.output.status).toBe(201);
    const account = await run(dir, "deposit-accounts.create", "inputs/deposit-accounts.create.json", [], env);
    expect(account.printed.output.status).toBe(201);
    const moved = await run(
      dir,
      "monetary-internal-transfers.create",
      "inputs/monetary-internal-transfers.create.json",
      [],
      env,
    );
    expect(moved.printed.output.payload).toMatchObject({ status: "posted" });
    // The embedded core never started: nothing was written to the project's own data file.
    expect(() => readFileSync(join(dir, ".bass", "mockcore.json"))).toThrow();
    const answer = await fetch(`${url}/core/v1/accounts/1000000002`);
    const account2 = (await answer.json()) as { balances: { ledger: string } };
    expect(account2.balances.ledger).toBe("1150.00");
  });
});

describe("--record and --replay", () => {
  it("records a masked cassette that answers the same run without a core", async () => {
    const dir = samplesCopy();
    const recorded = await run(dir, "customers.create", "inputs/customers.create.json", [
      "--record",
      "cassette.yaml",
    ]);
    expect(recorded.code).toBe(0);
    const cassette = readFileSync(join(dir, "cassette.yaml"), "utf8");
    expect(cassette).toContain("/core/v1/persons");
    expect(cassette).not.toContain("123-45-6789");
    const replayed = await run(dir, "customers.create", "inputs/customers.create.json", [
      "--replay",
      "cassette.yaml",
    ]);
    expect(replayed.printed.output).toEqual(recorded.printed.output);
    expect(replayed.code).toBe(0);
  });

  it("fails a run whose call the cassette does not hold", async () => {
    const dir = samplesCopy();
    await run(dir, "customers.create", "inputs/customers.create.json", ["--record", "cassette.yaml"]);
    const other = await run(dir, "customers.retrieve", "inputs/customers.retrieve.json", [
      "--replay",
      "cassette.yaml",
    ]);
    const request = other.printed.history.items.find((item: { kind: string }) => item.kind === "REQUEST");
    expect(request.response.messages[0]).toMatch(
      /cassette\.yaml holds no exchange for service request "core" \(GET \/core\/v1\/persons\/P000001\)/,
    );
    expect(other.code).toBe(1);
  });
});

describe("the installed command (bin/bass.cjs, the bundled CLI)", () => {
  it("runs a sample live against the embedded mock core, and mocked", async () => {
    const dir = samplesCopy();
    const bass = (...args: string[]) =>
      promisify(execFile)(process.execPath, [bin, ...args, "--project", dir, "--json"], { cwd: dir });
    const live = JSON.parse(
      (await bass("run", "customers.create", "--input", "inputs/customers.create.json")).stdout,
    );
    expect(live).toMatchObject({ status: "success", output: { status: 201 } });
    expect(live.output.payload.customer_id).toMatch(/^P\d{6}$/);
    const mocked = JSON.parse(
      (
        await bass(
          "run",
          "customers.create",
          "--input",
          "inputs/customers.create.json",
          "--mock",
          "mocks/customers.create.yaml",
        )
      ).stdout,
    );
    expect(mocked).toMatchObject({ status: "success", output: { payload: { customer_id: "P000042" } } });
  });
});
