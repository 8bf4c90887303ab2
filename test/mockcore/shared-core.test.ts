import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { removeStaleLock } from "../../src/mockcore/core-lock.js";
import { followSharedMockcore, startSharedMockcore } from "../../src/mockcore/shared-core.js";
import { startSystems } from "../../src/project/systems.js";
import { copySamples, createTempDir, runCli } from "../_helpers.js";

const bin = join(import.meta.dirname, "../../bin/bass.cjs");

/** Whether the core at `url` answers a GET of a demo person. */
async function answers(url: string): Promise<boolean> {
  return fetch(`${url}/core/v1/persons/P000001`).then(
    (response) => response.ok,
    () => false,
  );
}

/** `bass mockcore --data FILE` of the built CLI in a child process, once it listens. */
async function spawnMockcore(dataFile: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [bin, "mockcore", "--data", dataFile, "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  onTestFinished(() => {
    child.kill("SIGKILL");
  });
  const url = await new Promise<string>((resolve, reject) => {
    let printed = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
      const found = /listening on (http:\/\/[\d.:]+)/.exec(printed)?.[1];
      if (found) resolve(found);
    });
    child.once("exit", () => reject(new Error(`bass mockcore ended: ${printed}`)));
  });
  return { child, url };
}

/** A TCP server on a free loopback port, closed when the test ends. */
async function listening(): Promise<{ server: Server; url: string }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => {
    server.close();
  });
  const address = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${address.port}` };
}

describe("the mock core on a data file, shared", () => {
  it("is one core per data file in a process, closed with its last user, lock and all", async () => {
    const dataFile = join(createTempDir(), "core.json");
    const first = await startSharedMockcore({ dataFile, lasting: false });
    const second = await startSharedMockcore({ dataFile, lasting: true });
    expect(second.url).toBe(first.url);
    expect(JSON.parse(readFileSync(`${dataFile}.lock`, "utf8"))).toEqual({
      pid: process.pid,
      url: first.url,
      lasting: false,
    });
    await first.close();
    expect(await answers(second.url)).toBe(true);
    await second.close();
    expect(await answers(second.url)).toBe(false);
    expect(existsSync(`${dataFile}.lock`)).toBe(false);
    expect(existsSync(dataFile)).toBe(true);
  });

  it("sends another process's requests to a lasting owner, and bass mockcore refuses the same file", async () => {
    const dataFile = join(createTempDir(), "core.json");
    const owner = await spawnMockcore(dataFile);
    const shared = await startSharedMockcore({ dataFile, lasting: false });
    expect(shared).toMatchObject({ url: owner.url, ownerPid: owner.child.pid });
    await shared.close();
    expect(await answers(owner.url)).toBe(true);

    const second = await runCli(["mockcore", "--data", dataFile, "--port", "0"], { cwd: createTempDir() });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(
      `is in use by the mock core at ${owner.url} (process ${owner.child.pid})`,
    );
  });

  it("waits for a short owner to let go, then starts its own core on the file", async () => {
    const dataFile = join(createTempDir(), "core.json");
    const busy = await listening();
    writeFileSync(`${dataFile}.lock`, JSON.stringify({ pid: process.pid, url: busy.url, lasting: false }));
    const events: string[] = [];
    const started = startSharedMockcore({ dataFile, lasting: false }).then((core) => {
      events.push("started");
      return core;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    events.push("released");
    rmSync(`${dataFile}.lock`);
    const core = await started;
    onTestFinished(() => core.close());
    expect(events).toEqual(["released", "started"]);
    expect(core.url).not.toBe(busy.url);
    expect(JSON.parse(readFileSync(`${dataFile}.lock`, "utf8"))).toMatchObject({ url: core.url });
  });

  it.each([
    ["whose process has ended", async () => ({ pid: await endedPid(), url: (await listening()).url })],
    ["whose core no longer listens", async () => ({ pid: process.pid, url: "http://127.0.0.1:9" })],
  ])("takes over a lock %s", async (_, owner) => {
    const dataFile = join(createTempDir(), "core.json");
    writeFileSync(`${dataFile}.lock`, JSON.stringify({ ...(await owner()), lasting: true }));
    const core = await startSharedMockcore({ dataFile, lasting: false });
    onTestFinished(() => core.close());
    expect(core.ownerPid).toBeUndefined();
    expect(JSON.parse(readFileSync(`${dataFile}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("takes over an empty lock a crash left, but not one that is being written", async () => {
    const dataFile = join(createTempDir(), "core.json");
    writeFileSync(`${dataFile}.lock`, "");
    const aMinuteAgo = (Date.now() - 60_000) / 1000;
    utimesSync(`${dataFile}.lock`, aMinuteAgo, aMinuteAgo);
    const core = await startSharedMockcore({ dataFile, lasting: false });
    onTestFinished(() => core.close());
    expect(JSON.parse(readFileSync(`${dataFile}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("removes the stale lock it judged, never a newer one, and waits while another takeover runs", async () => {
    const dir = createTempDir();
    const lock = join(dir, "core.json.lock");
    const identity = () => {
      const { ino, size, ctimeNs } = statSync(lock, { bigint: true });
      return { ino, size, ctimeNs };
    };
    const staleText = JSON.stringify({ pid: 1, url: "http://127.0.0.1:9", lasting: true });
    writeFileSync(lock, staleText);
    const stale = identity();
    // Another process removed the stale lock and took a new one, which ext4 may give the same inode.
    rmSync(lock);
    await new Promise((resolve) => setTimeout(resolve, 10));
    writeFileSync(lock, "");
    writeFileSync(lock, JSON.stringify({ pid: process.pid, url: "http://127.0.0.1:1", lasting: true }));
    const newer = readFileSync(lock, "utf8");
    expect(await removeStaleLock(lock, stale)).toBe(true);
    expect(readFileSync(lock, "utf8")).toBe(newer);
    // A takeover in progress: this one leaves the lock alone and says so.
    writeFileSync(`${lock}.takeover`, "");
    expect(await removeStaleLock(lock, identity())).toBe(false);
    expect(readFileSync(lock, "utf8")).toBe(newer);
    // A takeover a crash left: its guard goes, and the next look removes the lock.
    const aMinuteAgo = (Date.now() - 60_000) / 1000;
    utimesSync(`${lock}.takeover`, aMinuteAgo, aMinuteAgo);
    expect(await removeStaleLock(lock, identity())).toBe(false);
    expect(existsSync(`${lock}.takeover`)).toBe(false);
    expect(await removeStaleLock(lock, identity())).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    // Already gone: nothing to do.
    expect(await removeStaleLock(lock, stale)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("has one owner when several processes find the same stale lock at once", async () => {
    const dataFile = join(createTempDir(), "core.json");
    writeFileSync(
      `${dataFile}.lock`,
      JSON.stringify({ pid: await endedPid(), url: (await listening()).url, lasting: true }),
    );
    const started = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        const child = spawn(process.execPath, [bin, "mockcore", "--data", dataFile, "--port", "0"], {
          stdio: ["ignore", "pipe", "pipe"],
        });
        onTestFinished(() => {
          child.kill("SIGKILL");
        });
        let printed = "";
        child.stdout?.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
        child.stderr?.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
        // The owner keeps running once it listens; the others end, sent to the owner's core.
        return new Promise<string>((resolve) => {
          child.stdout?.on("data", () => printed.includes("listening on") && resolve(printed));
          child.once("exit", () => resolve(printed));
        });
      }),
    );
    const owners = started.filter((printed) => printed.includes("listening on"));
    expect(owners).toHaveLength(1);
    const url = /listening on (http:\/\/[\d.:]+)/.exec(owners[0] ?? "")?.[1];
    for (const printed of started.filter((text) => !text.includes("listening on")))
      expect(printed).toContain(`is in use by the mock core at ${url}`);
    expect(existsSync(`${dataFile}.lock.takeover`)).toBe(false);
  });

  it("lets bass runs started together take turns, so every transfer is kept", async () => {
    const dir = createTempDir();
    copySamples(dir);
    const run = promisify(execFile);
    const { CORE_URL: _, ...env } = process.env;
    const transfer = (cents: number) => {
      const input = join(dir, `transfer-${cents}.json`);
      writeFileSync(
        input,
        JSON.stringify({
          from_account_number: "1000000001",
          to_account_number: "1000000002",
          amount: `1.${String(cents).padStart(2, "0")}`,
          currency: "USD",
        }),
      );
      return run(process.execPath, [bin, "run", "monetary-internal-transfers.create", "--input", input], {
        cwd: dir,
        env,
      });
    };
    await transfer(0);
    const balance = () => {
      const ledger = JSON.parse(readFileSync(join(dir, ".bass", "mockcore.json"), "utf8"));
      return ledger.accounts.find(
        (account: { accountNumber: string }) => account.accountNumber === "1000000001",
      ).balances.ledger;
    };
    const before = Number(balance());
    await Promise.all([1, 2, 3, 4].map(transfer));
    expect(Number(balance())).toBeCloseTo(before - 4.1, 2);
    expect(existsSync(join(dir, ".bass", "mockcore.json.lock"))).toBe(false);
  }, 60_000);

  it("is taken over within 2 s when the process that ran it ends, and its users follow", async () => {
    const dataFile = join(createTempDir(), "core.json");
    const owner = await spawnMockcore(dataFile);
    const followed = await followSharedMockcore({ dataFile, lasting: true });
    onTestFinished(() => followed.close());
    expect(followed.url).toBe(owner.url);
    const moves: string[] = [];
    followed.onMove((url) => {
      moves.push(url);
    });
    owner.child.kill("SIGKILL");
    const killedAt = Date.now();
    while (moves.length === 0 && Date.now() - killedAt < 2000)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(moves).toHaveLength(1);
    expect(followed.url).toBe(moves[0]);
    expect(followed.url).not.toBe(owner.url);
    expect(await answers(followed.url)).toBe(true);
    expect(JSON.parse(readFileSync(`${dataFile}.lock`, "utf8"))).toMatchObject({
      pid: process.pid,
      url: followed.url,
    });
  });

  it("lets a project's systems call the core again once they took it over", async () => {
    const dir = createTempDir();
    const dataFile = join(dir, ".bass", "mockcore.json");
    const owner = await spawnMockcore(dataFile);
    const config = {
      systems: { core: { adapter: "http" as const, base_url: "mockcore:" } },
      mockcore: { data: ".bass/mockcore.json" },
    };
    const systems = await startSystems(config, dir, { lasting: true });
    onTestFinished(() => systems.close());
    const get = () =>
      systems.resolve("core").execute(
        { service_name: "person", payload: { service_path: "/core/v1/persons/P000001", method: "GET" } },
        {
          system: "core",
          formulaVariable: "core",
          sridx: null,
          deadline: Number.POSITIVE_INFINITY,
          signal: new AbortController().signal,
        },
      );
    expect((await get()).success).toBe(true);
    owner.child.kill("SIGKILL");
    const killedAt = Date.now();
    while (systems.mockcoreUrl === owner.url && Date.now() - killedAt < 2000)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(systems.mockcoreUrl).not.toBe(owner.url);
    expect((await get()).success).toBe(true);
  });
});

/** The pid of a process that has ended. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"]);
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid ?? 0;
}
