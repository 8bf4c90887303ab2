import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runMockcore } from "../../src/cli/mockcore.js";
import { captureOutput, createTempDir, runCli, stopSignal } from "../_helpers.js";

const bin = join(import.meta.dirname, "../../bin/bass.cjs");
const listening = /^mockcore listening on (http:\/\/127\.0\.0\.1:\d+)/;

describe("bass mockcore as a process (the built CLI)", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "answers the demo data and exits 0 on %s, its data file written",
    async (signal) => {
      const dir = createTempDir();
      const child = spawn(process.execPath, [bin, "mockcore", "--port", "0", "--data", "state/core.json"], {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const line = await new Promise<string>((resolve, reject) => {
        let text = "";
        child.stdout.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
          if (text.includes("\n")) resolve(text);
        });
        child.once("exit", () => reject(new Error(`bass mockcore exited early: ${text}`)));
      });
      expect(line).toBe(`${listening.exec(line)?.[0]} (data: ${join(dir, "state/core.json")})\n`);
      const url = listening.exec(line)?.[1];

      const response = await fetch(`${url}/core/v1/persons/P000001`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        personId: "P000001",
        firstName: "Ada",
        lastName: "Lovelace",
      });

      child.kill(signal);
      expect(await exited).toBe(0);
      expect(JSON.parse(readFileSync(join(dir, "state/core.json"), "utf8")).accounts).toHaveLength(4);
    },
  );
});

describe("runMockcore", () => {
  it("prints where it listens, and returns 0 once stopped", async () => {
    const { output, stdout } = captureOutput();
    const { stopped, stop } = stopSignal();
    const code = runMockcore({ port: 0, host: "127.0.0.1", cwd: createTempDir(), stopped }, output);
    await expect.poll(stdout).toMatch(listening);
    const url = listening.exec(stdout())?.[1];
    expect((await fetch(`${url}/core/v1/accounts/1000000001`)).status).toBe(200);
    expect((await fetch(`${url}/core/v1/persons/P999999`)).status).toBe(404);
    stop();
    expect(await code).toBe(0);
    await expect(fetch(`${url}/core/v1/accounts/1000000001`)).rejects.toThrow();
    // A line per request, and one when it stops.
    expect(
      stdout()
        .split("\n")
        .slice(1)
        .map((line) => line.replace(/ \d+ ms$/, " N ms")),
    ).toEqual([
      "GET /core/v1/accounts/1000000001 200 N ms",
      "GET /core/v1/persons/P999999 404 N ms",
      "mockcore stopped",
      "",
    ]);
  });
});

describe("bass mockcore's options", () => {
  it.each([
    ["--port", "abc", "give a port from 0 to 65535"],
    ["--port", "65536", "give a port from 0 to 65535"],
    ["--latency", "-5", "give a whole number of milliseconds"],
    ["--error-rate", "1.5", "give a number from 0 to 1"],
    ["--reset-rate", "-0.1", "give a number from 0 to 1"],
    ["--malformed-rate", "often", "give a number from 0 to 1"],
  ])("refuse %s %s as a usage error (exit 2)", async (option, value, message) => {
    const result = await runCli(["mockcore", option, value], { cwd: createTempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
