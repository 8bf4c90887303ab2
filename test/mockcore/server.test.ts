import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { isBassError } from "../../src/errors.js";
import { formatMoney } from "../../src/mockcore/money.js";
import { type Mockcore, type StartMockcoreOptions, startMockcore } from "../../src/mockcore/server.js";
import { createTempDir } from "../_helpers.js";

const clock = () => new Date("2026-01-20T16:45:03Z");

/** A mock core on a free loopback port, closed when the test ends. */
async function start(options: StartMockcoreOptions = {}): Promise<Mockcore> {
  const core = await startMockcore({ clock, ...options });
  onTestFinished(() => core.close());
  return core;
}

async function call(
  core: Mockcore,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(`${core.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

const sampleTransfer = {
  fromAccount: "1000000001",
  toAccount: "1000000002",
  amount: "150.00",
  currency: "USD",
  memo: "Monthly savings",
};

function balance(core: Mockcore, accountNumber: string): string {
  return formatMoney(core.ledger.state.accounts.get(accountNumber)?.ledger ?? -1n);
}

describe("the mock core over HTTP", () => {
  it("listens on 127.0.0.1 and a free port by default", async () => {
    const core = await start();
    expect(core.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it.each<[string, string, string, unknown, number, object]>([
    [
      "GET",
      "a person",
      "/core/v1/persons/P000001",
      undefined,
      200,
      { personId: "P000001", firstName: "Ada" },
    ],
    ["GET", "an unknown person", "/core/v1/persons/P000099", undefined, 404, { errorCode: "NOT_FOUND" }],
    [
      "POST",
      "a new person",
      "/core/v1/persons",
      {
        firstName: "Grace",
        lastName: "Hopper",
        email: "g@example.com",
        birthDate: "1986-12-09",
        taxId: "123-45-6789",
      },
      201,
      { personId: "P000042", statusCode: 1, createdAt: "2026-01-20T16:45:03Z" },
    ],
    [
      "POST",
      "a bad person",
      "/core/v1/persons",
      { firstName: "Grace" },
      400,
      { errorCode: "INVALID_REQUEST" },
    ],
    [
      "GET",
      "an account",
      "/core/v1/accounts/1000000001",
      undefined,
      200,
      { balances: { ledger: "2350.00", available: "2350.00" } },
    ],
    ["GET", "an unknown account", "/core/v1/accounts/1000000099", undefined, 404, { errorCode: "NOT_FOUND" }],
    [
      "POST",
      "a new account",
      "/core/v1/accounts",
      { personId: "P000001", productCode: "SAV", currency: "USD", openingDeposit: "250.00" },
      201,
      { accountNumber: "1000000042", balances: { ledger: "250.00", available: "250.00" } },
    ],
    [
      "POST",
      "an account for a closed person",
      "/core/v1/accounts",
      { personId: "P000002", productCode: "SAV", currency: "USD" },
      409,
      { errorCode: "PERSON_NOT_ACTIVE" },
    ],
    [
      "GET",
      "a page of transactions",
      "/core/v1/accounts/1000000001/transactions?fromDate=2026-01-05&toDate=2026-01-31&limit=1&offset=1",
      undefined,
      200,
      { items: [{ txnId: "T000103" }], total: 2 },
    ],
    [
      "GET",
      "a bad limit",
      "/core/v1/accounts/1000000001/transactions?limit=0",
      undefined,
      400,
      { errorCode: "INVALID_REQUEST" },
    ],
    [
      "POST",
      "a transfer",
      "/core/v1/transfers",
      sampleTransfer,
      201,
      { transferId: "TR00000017", status: "POSTED" },
    ],
    [
      "POST",
      "a bad amount",
      "/core/v1/transfers",
      { ...sampleTransfer, amount: "1.5.0" },
      400,
      { errorCode: "INVALID_REQUEST" },
    ],
    [
      "POST",
      "a closed account",
      "/core/v1/transfers",
      { ...sampleTransfer, toAccount: "1000000003" },
      409,
      { errorCode: "ACCOUNT_CLOSED" },
    ],
    [
      "POST",
      "insufficient funds",
      "/core/v1/transfers",
      { ...sampleTransfer, amount: "9999.00" },
      422,
      { errorCode: "INSUFFICIENT_FUNDS" },
    ],
    [
      "POST",
      "another currency",
      "/core/v1/transfers",
      { ...sampleTransfer, toAccount: "1000000004" },
      422,
      { errorCode: "CURRENCY_MISMATCH" },
    ],
    [
      "POST",
      "a body that is not JSON",
      "/core/v1/transfers",
      "{amount: 1",
      400,
      { errorMessage: "the body is not JSON" },
    ],
    [
      "POST",
      "no body",
      "/core/v1/persons",
      undefined,
      400,
      { errorMessage: "the body must be a JSON object" },
    ],
    ["GET", "an unknown route", "/core/v2/persons", undefined, 404, { errorCode: "NOT_FOUND" }],
    [
      "DELETE",
      "a known path with another method",
      "/core/v1/persons/P000001",
      undefined,
      405,
      { errorCode: "METHOD_NOT_ALLOWED" },
    ],
    [
      "GET",
      "bad percent-encoding",
      "/core/v1/persons/%E0%A4%A",
      undefined,
      400,
      { errorCode: "INVALID_REQUEST" },
    ],
  ])("%s: answers %s", async (method, _, path, body, status, expected) => {
    const core = await start();
    const answer = await call(core, method, path, body);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject(expected);
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  it("names the methods a known path answers", async () => {
    const core = await start();
    expect((await call(core, "PUT", "/core/v1/transfers", {})).headers.get("allow")).toBe("POST");
  });

  it("decodes path parameters", async () => {
    const core = await start();
    expect((await call(core, "GET", "/core/v1/persons/P%30%30%30%30%301")).status).toBe(200);
  });

  it("answers 413 to a body over the limit, and posts nothing", async () => {
    const core = await start({ bodyLimitBytes: 100 });
    const answer = await call(core, "POST", "/core/v1/transfers", {
      ...sampleTransfer,
      memo: "m".repeat(120),
    });
    expect(answer).toMatchObject({ status: 413, body: { errorCode: "PAYLOAD_TOO_LARGE" } });
    expect(core.ledger.state.revision).toBe(0);
  });

  it("answers a repeated X-Idempotency-Key with the first answer and moves the money once", async () => {
    const core = await start();
    const headers = { "X-Idempotency-Key": "7f6c1e2a-demo-0001" };
    const first = await call(core, "POST", "/core/v1/transfers", sampleTransfer, headers);
    const again = await call(core, "POST", "/core/v1/transfers", sampleTransfer, headers);
    expect(first.status).toBe(201);
    expect(again).toMatchObject({ status: 201, body: first.body });
    expect(balance(core, "1000000001")).toBe("2200.00");
  });
});

describe("concurrent transfers", () => {
  it.each([
    ["100.00", 23, "50.00"],
    ["47.00", 50, "0.00"],
    ["1000.00", 2, "350.00"],
  ])(
    "of %s each, 50 at once from 2350.00: %i post and the balance ends at %s",
    async (amount, posted, left) => {
      const core = await start({ dataFile: join(createTempDir(), "core.json") });
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          call(
            core,
            "POST",
            "/core/v1/transfers",
            { ...sampleTransfer, amount },
            { "X-Idempotency-Key": `key-${index}` },
          ),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(posted);
      expect(statuses.filter((status) => status === 422)).toHaveLength(50 - posted);
      expect(balance(core, "1000000001")).toBe(left);
      const ids = answers.flatMap((answer) =>
        answer.status === 201 ? [(answer.body as { transferId: string }).transferId] : [],
      );
      expect(new Set(ids).size).toBe(posted);
    },
  );
});

describe("the data file", () => {
  it("starts with the demo data, and a restart finds every change", async () => {
    const dir = createTempDir();
    const dataFile = join(dir, ".bass", "mockcore.json");
    const first = await startMockcore({ dataFile, clock });
    expect(JSON.parse(readFileSync(dataFile, "utf8")).persons[0].personId).toBe("P000001");
    await call(first, "POST", "/core/v1/transfers", sampleTransfer, { "X-Idempotency-Key": "key-1" });
    await call(first, "POST", "/core/v1/persons", {
      firstName: "Grace",
      lastName: "Hopper",
      email: "g@example.com",
      birthDate: "1986-12-09",
      taxId: "123-45-6789",
    });
    await first.close();

    const second = await start({ dataFile });
    expect((await call(second, "GET", "/core/v1/accounts/1000000001")).body).toMatchObject({
      balances: { ledger: "2200.00" },
    });
    expect((await call(second, "GET", "/core/v1/persons/P000042")).body).toMatchObject({
      firstName: "Grace",
    });
    const replay = await call(second, "POST", "/core/v1/transfers", sampleTransfer, {
      "X-Idempotency-Key": "key-1",
    });
    expect(replay.body).toMatchObject({ transferId: "TR00000017" });
    expect(balance(second, "1000000001")).toBe("2200.00");
    expect((await call(second, "POST", "/core/v1/transfers", sampleTransfer)).body).toMatchObject({
      transferId: "TR00000018",
    });
    expect(readdirSync(join(dir, ".bass"))).toEqual(["mockcore.json"]);
  });

  it("holds a change once the core has answered it", async () => {
    const dataFile = join(createTempDir(), "core.json");
    const core = await start({ dataFile });
    await call(core, "POST", "/core/v1/transfers", sampleTransfer);
    expect(JSON.parse(readFileSync(dataFile, "utf8")).accounts[0].balances.ledger).toBe("2200.00");
  });

  it("is not written when nothing changes", async () => {
    const dataFile = await seed(join(createTempDir(), "core.json"));
    const before = statSync(dataFile);
    const core = await start({ dataFile });
    await call(core, "POST", "/core/v1/transfers", { ...sampleTransfer, amount: "99999.00" });
    await call(core, "GET", "/core/v1/persons/P000001");
    await core.close();
    // Every write renames a new file over the old one, so an unchanged inode means no write.
    expect(statSync(dataFile).ino).toBe(before.ino);
  });

  it("refuses to start on a file that is not mock core data", async () => {
    const dataFile = join(createTempDir({ "core.json": '{"persons": []}' }), "core.json");
    const error = await startMockcore({ dataFile }).catch((caught: unknown) => caught);
    expect(isBassError(error) && error.code).toBe("FILE_UNREADABLE");
    expect((error as Error).message).toContain(dataFile);
  });
});

/** Writes the demo data to `dataFile` through a core of its own, and gives the path back. */
async function seed(dataFile: string): Promise<string> {
  const core = await startMockcore({ dataFile });
  await core.close();
  return dataFile;
}

describe("fault injection", () => {
  it("waits latencyMs before answering", async () => {
    const core = await start({ faults: { latencyMs: 150 } });
    const started = performance.now();
    expect((await call(core, "GET", "/core/v1/persons/P000001")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it("answers 500 INTERNAL at errorRate, and posts nothing", async () => {
    const core = await start({ faults: { errorRate: 0.5, random: () => 0.49 } });
    const answer = await call(core, "POST", "/core/v1/transfers", sampleTransfer);
    expect(answer).toMatchObject({ status: 500, body: { errorCode: "INTERNAL" } });
    expect(balance(core, "1000000001")).toBe("2350.00");
  });

  it("answers as usual when the draw is above the rate", async () => {
    const core = await start({
      faults: { errorRate: 0.5, resetRate: 0.5, malformedRate: 0.5, random: () => 0.5 },
    });
    expect((await call(core, "GET", "/core/v1/persons/P000001")).status).toBe(200);
  });

  it("drops the connection at resetRate after posting, so a retry with the same key gets the first answer", async () => {
    const draws = [0];
    const core = await start({ faults: { resetRate: 0.1, random: () => draws.shift() ?? 1 } });
    const headers = { "X-Idempotency-Key": "key-1" };
    await expect(call(core, "POST", "/core/v1/transfers", sampleTransfer, headers)).rejects.toThrow();
    expect(balance(core, "1000000001")).toBe("2200.00");
    const retry = await call(core, "POST", "/core/v1/transfers", sampleTransfer, headers);
    expect(retry).toMatchObject({ status: 201, body: { transferId: "TR00000017" } });
    expect(balance(core, "1000000001")).toBe("2200.00");
  });

  it("answers 200 with a body that is not JSON at malformedRate", async () => {
    const core = await start({ faults: { malformedRate: 1, random: () => 0 } });
    const response = await fetch(`${core.url}/core/v1/persons/P000001`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const text = await response.text();
    expect(text.startsWith('{"personId":"P000001"')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
  });

  it.each<[string, StartMockcoreOptions["faults"]]>([
    ["a rate above 1", { errorRate: 1.5 }],
    ["a negative rate", { resetRate: -0.1 }],
    ["a negative latency", { latencyMs: -1 }],
  ])("refuses %s", async (_, faults) => {
    const error = await startMockcore({ faults }).catch((caught: unknown) => caught);
    expect(isBassError(error) && error.code).toBe("USAGE");
  });
});

describe("startMockcore", () => {
  it("refuses a port that is taken, naming it", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as { port: number }).port;
    const error = await startMockcore({ port }).catch((caught: unknown) => caught);
    expect(isBassError(error) && error.code).toBe("USAGE");
    expect((error as Error).message).toBe(
      `the mock core cannot listen on 127.0.0.1:${port}: port ${port} is in use; --port 0 picks a free one`,
    );
  });

  it("closes once however often close is called", async () => {
    const core = await startMockcore();
    await Promise.all([core.close(), core.close()]);
    await expect(fetch(`${core.url}/core/v1/persons/P000001`)).rejects.toThrow();
  });

  it("answers the in-memory demo data without a data file", async () => {
    const core = await start();
    expect((await call(core, "GET", "/core/v1/accounts/1000000002")).status).toBe(200);
  });
});
