import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createHistoryStore, resolveHistoryOptions } from "../../src/history/store.js";
import { copySamples, createTempDir } from "../_helpers.js";
import { spawnServe } from "./_serve-process.js";

const transfers = "/api/v1/core-processor/monetary-internal-transfers";
const transferBody = JSON.stringify({
  from_account_number: "1000000001",
  to_account_number: "1000000002",
  amount: "1.00",
  currency: "USD",
  memo: "crash test",
});
const gets = [
  "/api/v1/core-processor/customers?customer_id=P000001",
  "/api/v1/core-processor/monetary-transactions?account_number=1000000002&limit=5",
  "/_bass/health",
];

interface Answered {
  status: number;
  body: string;
}

/** Balances and the transfers posted with our keys, in cents, as the embedded mock core keeps them on disk. */
function readLedger(dir: string) {
  const data = JSON.parse(readFileSync(join(dir, ".bass/mockcore.json"), "utf8")) as {
    accounts: { accountNumber: string; balances: { ledger: string } }[];
    transfers: { idempotencyKey: string }[];
  };
  const cents = (account: string) =>
    Math.round(Number(data.accounts.find((a) => a.accountNumber === account)?.balances.ledger) * 100);
  return {
    from: cents("1000000001"),
    to: cents("1000000002"),
    // serve passes each key on behind its caller's tag (docs/behaviour.md#bass-serve).
    keys: data.transfers
      .map((transfer) => transfer.idempotencyKey.replace(/^[0-9a-f]{16}\./, ""))
      .filter((key) => key.startsWith("crash-")),
  };
}

function transfer(url: string, key: string): Promise<Response> {
  return fetch(`${url}${transfers}`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": key },
    body: transferBody,
    signal: AbortSignal.timeout(20_000),
  });
}

async function get(url: string): Promise<void> {
  await (await fetch(url, { signal: AbortSignal.timeout(20_000) })).arrayBuffer();
}

describe("bass serve after kill -9 under load (SPEC §5, §7, §12)", () => {
  it("keeps every history record whole and remembers every key it answered", async () => {
    const dir = createTempDir();
    copySamples(dir);
    const first = await spawnServe(dir);

    // 60 transfers of 1.00, each with its own key, 10 at a time, with a GET after every 5th; SIGKILL once 20 are answered.
    const answered = new Map<string, Answered>();
    let next = 0;
    let killed = false;
    const send = async (index: number) => {
      const key = `crash-${String(index).padStart(2, "0")}`;
      try {
        const response = await transfer(first.url, key);
        // Whole answers that arrive after the kill was sent count too: the server gave them before it died.
        answered.set(key, { status: response.status, body: await response.text() });
        if (answered.size >= 20 && !killed) {
          killed = true;
          first.child.kill("SIGKILL");
        }
        if (index % 5 === 4) await get(`${first.url}${gets[index % gets.length]}`);
      } catch {
        // Cut off by the kill: this key was never answered.
      }
    };
    const worker = async () => {
      while (next < 60 && !killed) await send(next++);
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    expect(await first.exited).toBe("SIGKILL");
    expect(answered.size).toBeGreaterThanOrEqual(20);
    for (const { status } of answered.values()) expect(status).toBe(201);

    // Every line of the history segments is a whole record, but for a last line a write left cut short. A
    // record is written just after its answer, so the last few answered runs may have none.
    const history = join(dir, ".bass/history");
    const records = readdirSync(history).flatMap((name) => {
      expect(name).toMatch(/^[0-9A-Z]{26}(-\d+)?\.jsonl$/);
      return readFileSync(join(history, name), "utf8").split("\n").slice(0, -1);
    });
    expect(records.length).toBeGreaterThanOrEqual(10);
    for (const line of records) {
      const record = JSON.parse(line);
      expect(record).toMatchObject({ id: expect.stringMatching(/^[0-9A-Z]{26}$/), status: "success" });
      expect(record.items.at(-1)).toMatchObject({ kind: "OUTPUT" });
    }

    // The core posted each answered key once, and its balances agree with what it posted.
    const afterKill = readLedger(dir);
    for (const key of answered.keys()) expect(afterKill.keys).toContain(key);
    expect(new Set(afterKill.keys).size).toBe(afterKill.keys.length);
    expect(afterKill.from).toBe(235_000 - 100 * afterKill.keys.length);
    expect(afterKill.to).toBe(100_000 + 100 * afterKill.keys.length);

    // After a restart, every answered key replays its answer and posts nothing again.
    const second = await spawnServe(dir);
    const runs = () => createHistoryStore(resolveHistoryOptions(dir)).list();
    const recordsBefore = (await runs()).length;
    for (const [key, first] of answered) {
      const response = await transfer(second.url, key);
      expect(response.headers.get("idempotent-replayed"), key).toBe("true");
      // After a restart the answer comes from disk, sealed there, and is the first one byte for byte.
      expect({ status: response.status, body: await response.text() }).toEqual(first);
    }
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    expect(readLedger(dir)).toEqual(afterKill);
    // A replay runs nothing, so it leaves no run behind.
    expect(await runs()).toHaveLength(recordsBefore);
  }, 120_000);
});
