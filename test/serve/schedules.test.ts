import { describe, expect, it, onTestFinished } from "vitest";
import { createServeApp } from "../../src/serve/app.js";
import { createTempDir, runCli } from "../_helpers.js";

const ticker = `name: ticker
schedule:
  every: 100ms
  payload: { source: the clock }
on_success_hook: "output.payload = { seen: input.payload.source, method: input.method }"
`;

describe("schedules under bass serve", () => {
  it("runs a scheduled integration on its times with its payload, and stops with serve", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nserve:\n  workers: 0\n",
      "integrations/ticker.yaml": ticker,
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
    onTestFinished(() => app.close());
    // Nothing runs before serve listens and starts them.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await app.history.list()).toEqual([]);
    app.startSchedules();
    await new Promise((resolve) => setTimeout(resolve, 450));
    await app.close();
    await app.history.flush();
    const runs = await app.history.list();
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.every((run) => run.trigger === "schedule" && run.status === "success")).toBe(true);
    expect(runs[0]?.items.at(-1)).toMatchObject({
      kind: "OUTPUT",
      data: { payload: { seen: "the clock", method: "POST" } },
    });
    const count = runs.length;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await app.history.list()).length).toBe(count);
  });

  it("does not double a run still going at its next time", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems:\n  slow:\n    adapter: ./slow.mjs\nserve:\n  workers: 0\n",
      "slow.mjs":
        "export async function execute() {\n  await new Promise((resolve) => setTimeout(resolve, 400));\n  return { success: true, status: 200, payload: {}, messages: [] };\n}\n",
      "integrations/slow.yaml":
        "name: slow\nschedule: { every: 50ms }\nservice_requests:\n  - formula_variable: wait\n    system: slow\n    service_name: wait\n",
    });
    const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
    onTestFinished(() => app.close());
    app.startSchedules();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(app.limiter.active).toBeLessThanOrEqual(1);
    await app.close();
    expect((await app.history.list()).length).toBeLessThanOrEqual(2);
  });
});

describe("schedules in bass list and bass validate", () => {
  it("lists each schedule with its next run", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/ticker.yaml": ticker,
      "integrations/morning.yaml": "name: morning\nschedule: { cron: '0 9 * * 1-5', tz: UTC }\n",
    });
    const listed = await runCli(["list", "--json"], { cwd: dir });
    const morning = (JSON.parse(listed.stdout) as { name: string; schedule?: { next_run: string } }[]).find(
      (integration) => integration.name === "morning",
    );
    const next = new Date(morning?.schedule?.next_run as string);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([9, 0]);
    expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());
    const text = await runCli(["list"], { cwd: dir });
    expect(text.stdout).toMatch(
      /\nSCHEDULES \(run by bass serve\)\n {2}morning {2}cron 0 9 \* \* 1-5 \(UTC\), next \S+\n {2}ticker {3}every 100ms, next \S+\n$/,
    );
  });

  it.each([
    ["{ cron: '61 * * * *' }", "cron", /cron "61 \* \* \* \*": .*minute/],
    ["{ cron: '0 9 * * *', tz: Mars/Olympus }", "tz", /tz "Mars\/Olympus"/],
    ["{ every: 5 minutes }", "every", /schedule\.every|every/],
    ["{ every: 5m, cron: '0 9 * * *' }", "every", /either every or cron/],
  ])("reports schedule %s", async (schedule, _key, message) => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/bad.yaml": `name: bad\nschedule: ${schedule}\n`,
    });
    const found = await runCli(["validate", "--format", "json"], { cwd: dir });
    expect(found.code).toBe(1);
    const findings = JSON.parse(found.stdout).findings as { rule: string; message: string }[];
    expect(findings.some((finding) => message.test(finding.message))).toBe(true);
  });
});
