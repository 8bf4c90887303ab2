import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copySamples, createTempDir } from "../_helpers.js";
import { spawnServe } from "./_serve-process.js";

/** A pid no process has: above Linux's largest. */
const gonePid = 4_194_305;

/** Every file and folder under `dir` with its permission bits, by path relative to `dir`. */
function modes(dir: string, prefix = ""): Record<string, number> {
  const found: Record<string, number> = {};
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const path = join(prefix, entry.name);
    found[path] = statSync(join(dir, path)).mode & 0o777;
    if (entry.isDirectory()) Object.assign(found, modes(dir, path));
  }
  return found;
}

describe("what bass serve keeps under .bass/ (SPEC §13.2)", () => {
  it("is private: files 0600, folders 0700, older ones tightened, a killed write's temp file gone", async () => {
    const dir = createTempDir();
    copySamples(dir);
    const state = join(dir, ".bass");
    mkdirSync(join(state, "history"), { recursive: true, mode: 0o755 });
    writeFileSync(join(state, "history", "old.txt"), "", { mode: 0o644 });
    const leftover = join(state, `mockcore.json.${gonePid}-0-7.tmp`);
    writeFileSync(leftover, "{", { mode: 0o644 });

    const serve = await spawnServe(dir);
    const base = `${serve.url}/api/v1/core-processor`;
    const transfer = await fetch(`${base}/monetary-internal-transfers`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "private-1" },
      body: JSON.stringify({
        from_account_number: "1000000001",
        to_account_number: "1000000002",
        amount: "1.00",
        currency: "USD",
      }),
    });
    expect(transfer.status).toBe(201);
    expect((await fetch(`${base}/customers?customer_id=P000001`)).status).toBe(200);
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);

    expect(existsSync(leftover)).toBe(false);
    const found = modes(state);
    const names = Object.keys(found);
    for (const wanted of ["state.key", "mockcore.json", "idempotency", "history", "cache"])
      expect(
        names.some((name) => name === wanted || name.startsWith(`${wanted}/`)),
        wanted,
      ).toBe(true);
    expect(names.filter((name) => name.startsWith("idempotency/")).length).toBeGreaterThan(0);
    for (const [name, mode] of Object.entries(found)) {
      const folder = statSync(join(state, name)).isDirectory();
      expect(`${name} ${mode.toString(8)}`).toBe(`${name} ${folder ? "700" : "600"}`);
    }
    expect(statSync(state).mode & 0o777).toBe(0o700);
  }, 30_000);
});
