/// <reference lib="dom" />
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/engine/types.js";
import { copySamples } from "../_helpers.js";
import { startServeInProcess } from "../serve/_serve-in-process.js";

/** Debian's Chromium (or the one BASS_CHROMIUM names): the tests drive it, nothing is downloaded. */
const executable = [process.env.BASS_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (path) => path !== undefined && existsSync(path),
);
if (!executable)
  console.warn(
    "browser tests skipped: no Chromium at /usr/bin/chromium (apt-get install chromium, or set BASS_CHROMIUM); .ci/run installs it",
  );

const taxId = "123-45-6789";
const person = (first: string) => ({
  first_name: first,
  last_name: "Hopper",
  email: `${first.toLowerCase()}@example.com`,
  date_of_birth: "1986-12-09",
  tax_id: taxId,
});
const createPath = "/api/v1/core-processor/customers";

/** Set to a folder, the tests leave screenshots of the list and a timeline there (for the docs). */
const screenshots = process.env.BASS_SCREENSHOTS;

describe.skipIf(!executable)("the run history page in Chromium", () => {
  let browser: Browser;
  let serve: Awaited<ReturnType<typeof startServeInProcess>>;
  let base: string;
  const dir = mkdtempSync(join(tmpdir(), "bass-browser-"));

  beforeAll(async () => {
    copySamples(dir);
    writeFileSync(
      join(dir, "integrations", "statements.export.yaml"),
      "name: statements.export\nendpoints:\n  - { method: POST, path: /statements }\non_success_hook: |\n  open_file('statement.csv', 'w').write('month,total\\n2026-11,1250.00\\n')\n",
    );
    serve = await startServeInProcess(dir);
    base = `http://127.0.0.1:${serve.port}`;
    browser = await chromium.launch({ executablePath: executable, args: ["--no-sandbox"] });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A run of customers.create over HTTP, as a client of serve makes it: its run id. */
  async function createCustomer(first: string): Promise<string> {
    const response = await fetch(base + createPath, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(person(first)),
    });
    expect(response.status).toBe(201);
    const runs = (await (await fetch(`${base}/_bass/runs?limit=1`)).json()) as RunRecord[];
    return runs[0]?.id as string;
  }

  /** A page that fails the test on a console error, an uncaught error, or a request to another host. */
  async function openPage(
    context?: BrowserContext,
    origin = base,
  ): Promise<{ page: Page; problems: string[] }> {
    const page = await (context ?? browser).newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("request", (request) => {
      if (!request.url().startsWith(origin)) problems.push(`request to another host: ${request.url()}`);
    });
    return { page, problems };
  }

  it("lists the runs, newest first, and takes a new run live", async () => {
    const first = await createCustomer("Grace");
    const second = await createCustomer("Alan");
    const { page, problems } = await openPage();
    await page.goto(`${base}/_bass/`);
    await page.waitForSelector(`tr[data-run="${second}"]`);
    const order = await page.$$eval("tr[data-run]", (rows) =>
      rows.map((row) => row.getAttribute("data-run")),
    );
    expect(order.slice(0, 2)).toEqual([second, first]);
    // Give the event stream a moment to open, then make a run: it shows without a reload.
    await page.waitForTimeout(300);
    const third = await createCustomer("Edsger");
    await page.waitForSelector(`tr[data-run="${third}"]`, { timeout: 5000 });
    expect(await page.$$eval("tr[data-run]", (rows) => rows[0]?.getAttribute("data-run"))).toBe(third);
    if (screenshots) await page.screenshot({ path: join(screenshots, "run-list.png"), fullPage: true });
    await page.close();
    expect(problems).toEqual([]);
  });

  it("shows a run's timeline with its calls masked, and the tax id nowhere on the page", async () => {
    const id = await createCustomer("Barbara");
    const { page, problems } = await openPage();
    await page.goto(`${base}/_bass/#/runs/${id}`);
    await page.waitForSelector(".timeline .item.request");
    const kinds = await page.$$eval(".timeline .kind", (cells) => cells.map((cell) => cell.textContent));
    expect(kinds).toEqual(expect.arrayContaining(["INPUT", "REQUEST", "OUTPUT"]));
    // Every item opened: what the page holds is all there is to see.
    await page.$$eval(".timeline details", (all) => {
      for (const details of all) (details as HTMLDetailsElement).open = true;
    });
    const text = await page.evaluate(() => document.body.innerText);
    const markup = await page.content();
    expect(text).toContain("XXXXXXXXXXXX");
    expect(text).toContain("REQUEST");
    expect(markup).not.toContain(taxId);
    expect(markup).not.toContain("123456789");
    if (screenshots) await page.screenshot({ path: join(screenshots, "run-timeline.png"), fullPage: true });
    await page.close();
    expect(problems).toEqual([]);
  });

  it("says which fields a copy sends masked, and copies bass run with the project's folder", async () => {
    const id = await createCustomer("Katherine");
    const { page, problems } = await openPage();
    await page.goto(`${base}/_bass/#/runs/${id}`);
    const warning = page.locator("[data-masked]");
    await warning.waitFor();
    expect(await warning.textContent()).toContain("payload.tax_id");
    await page.getByRole("button", { name: "Copy as bass run" }).click();
    const copied = (await page.locator(".note pre").textContent()) ?? "";
    expect(copied).toContain(`npx bass run 'customers.create' --project '${dir}' --method 'POST'`);
    expect(copied).toContain("XXXXXXXXXXXX");
    expect(copied).not.toContain(taxId);
    // A run whose request holds nothing masked has no warning.
    await fetch(`${base}${createPath}?customer_id=P000001`);
    const [plain] = (await (await fetch(`${base}/_bass/runs?limit=1`)).json()) as RunRecord[];
    await page.goto(`${base}/_bass/#/runs/${plain?.id}`);
    await page.getByRole("button", { name: "Re-run" }).waitFor();
    expect(await page.locator("[data-masked]").count()).toBe(0);
    await page.close();
    expect(problems).toEqual([]);
  });

  it("shows each run's request and answer, and a callint run's children under it", async () => {
    const response = await fetch(`${base}/api/v1/core-processor/onboardings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        customer: person("Mary"),
        account: { product_type: "checking", currency: "USD" },
      }),
    });
    expect(response.status).toBe(201);
    const [parent] = (await (
      await fetch(`${base}/_bass/runs?limit=1&integration=onboarding.create`)
    ).json()) as RunRecord[];
    const { page, problems } = await openPage();
    await page.goto(`${base}/_bass/`);
    const row = page.locator(`tr[data-run="${parent?.id}"]`);
    await row.waitFor();
    expect(await row.locator("td.request").textContent()).toContain(
      "POST /api/v1/core-processor/onboardings",
    );
    expect(await row.locator("td").nth(1).textContent()).toContain("201 success");
    // Its two children come right after it, each marked with its parent.
    const order = await page.$$eval("tr[data-run]", (rows) =>
      rows.map((one) => [one.getAttribute("data-run"), one.getAttribute("data-parent")]),
    );
    const at = order.findIndex(([id]) => id === parent?.id);
    expect(order.slice(at + 1, at + 3).map(([, of]) => of)).toEqual([parent?.id, parent?.id]);
    await page.close();
    expect(problems).toEqual([]);
  });

  it("searches as you type, and keeps the filters in the address", async () => {
    await createCustomer("Hedy");
    await createCustomer("Radia");
    const { page, problems } = await openPage();
    await page.goto(`${base}/_bass/`);
    await page.waitForSelector("tr[data-run]");
    await page.getByLabel("Text").pressSequentially("Radia");
    await page.waitForURL((url) => url.hash === "#/?q=Radia");
    await page.waitForFunction(() => document.querySelectorAll("tr[data-run]").length === 1);
    // The address opens the same list.
    await page.goto(`${base}/_bass/#/?status=success&q=Hedy`);
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll("tr[data-run]").length === 1);
    expect(await page.getByLabel("Text").inputValue()).toBe("Hedy");
    expect(await page.getByLabel("Status").inputValue()).toBe("success");
    await page.close();
    expect(problems).toEqual([]);
  });

  it("fits a 420 px screen: the list and a run's timeline, every item open, without scrolling sideways", async () => {
    const id = await createCustomer("Annie");
    const context = await browser.newContext({ viewport: { width: 420, height: 860 } });
    const { page, problems } = await openPage(context);
    await page.goto(`${base}/_bass/`);
    await page.waitForSelector("tr[data-run]");
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    if (screenshots) await page.screenshot({ path: join(screenshots, "run-list-420.png"), fullPage: true });
    await page.goto(`${base}/_bass/#/runs/${id}`);
    await page.waitForSelector(".timeline .item.request");
    await page.$$eval(".timeline details", (all) => {
      for (const one of all) (one as HTMLDetailsElement).open = true;
    });
    expect(await overflow()).toBeLessThanOrEqual(0);
    if (screenshots) await page.screenshot({ path: join(screenshots, "run-420.png"), fullPage: true });
    await context.close();
    expect(problems).toEqual([]);
  });

  it("re-runs a run: a new run, linked to the old one, with the same status", async () => {
    const response = await fetch(`${base}${createPath}?customer_id=P000001`);
    expect(response.status).toBe(200);
    const [original] = (await (await fetch(`${base}/_bass/runs?limit=1`)).json()) as RunRecord[];
    const { page, problems } = await openPage();
    await page.goto(`${base}/_bass/#/runs/${original?.id}`);
    await page.getByRole("button", { name: "Re-run" }).click();
    await page.waitForURL((url) => url.hash.startsWith("#/runs/") && !url.hash.endsWith(original?.id ?? ""));
    const rerunId = new URL(page.url()).hash.slice("#/runs/".length);
    await page.waitForSelector(`a[href="#/runs/${original?.id}"]`);
    const rerun = (await (await fetch(`${base}/_bass/runs/${rerunId}`)).json()) as RunRecord;
    const statusOf = (record: RunRecord | undefined) => {
      const output = record?.items.findLast((item) => item.kind === "OUTPUT");
      return output?.kind === "OUTPUT" ? output.data.status : undefined;
    };
    expect(rerun).toMatchObject({ trigger: "rerun", rerun_of: original?.id, status: original?.status });
    expect(statusOf(rerun)).toBe(statusOf(original));
    await page.close();
    expect(problems).toEqual([]);
  });

  it("lists a run's files and downloads one with the credential's fetch", async () => {
    const response = await fetch(`${base}/statements`, { method: "POST" });
    expect(response.status).toBe(200);
    const [run] = (await (await fetch(`${base}/_bass/runs?limit=1`)).json()) as RunRecord[];
    const { page, problems } = await openPage();
    await page.goto(`${base}/_bass/#/runs/${run?.id}`);
    await page.waitForSelector(".files li");
    expect(
      await page.$eval(".files li", (item) => [...item.children].map((part) => part.textContent?.trim())),
    ).toEqual(["statement.csv", "text/csv, 28 B"]);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "statement.csv" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("statement.csv");
    expect(readFileSync(await download.path(), "utf8")).toBe("month,total\n2026-11,1250.00\n");
    await page.close();
    expect(problems).toEqual([]);
  });

  it("shows the difference of two runs", async () => {
    const a = await createCustomer("Ada");
    const b = await createCustomer("Donald");
    const { page, problems } = await openPage();
    await page.goto(`${base}/_bass/#/diff/${a}/${b}`);
    await page.waitForSelector("table.diff");
    const rows = await page.$$eval("table.diff tbody tr", (all) =>
      all.map((row) => [...row.children].map((cell) => cell.textContent?.trim())),
    );
    // Grouped by item, each group named by what the item is; the columns name the two runs.
    expect(rows).toContainEqual(["Item 1: INPUT"]);
    const group = rows.findIndex((row) => row[0] === "Item 1: INPUT");
    expect(rows.slice(group + 1)).toContainEqual(["data.payload.first_name", '"Ada"', '"Donald"']);
    const heads = await page.$$eval("table.diff thead th", (all) =>
      all.map((cell) => cell.textContent?.trim()),
    );
    expect(heads).toEqual(["Where", `A · ${a}`, `B · ${b}`]);
    if (screenshots) await page.screenshot({ path: join(screenshots, "run-diff.png"), fullPage: true });
    expect(JSON.stringify(rows)).not.toContain(taxId);
    await page.close();
    expect(problems).toEqual([]);
  });

  it("is usable with the keyboard: Tab reaches a run, Enter opens it", async () => {
    const id = await createCustomer("Katherine");
    const { page, problems } = await openPage();
    await page.goto(`${base}/_bass/`);
    await page.waitForSelector(`tr[data-run="${id}"]`);
    let focused = "";
    for (let presses = 0; presses < 30 && !focused.startsWith("#/runs/"); presses++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(() => document.activeElement?.getAttribute("href") ?? "");
    }
    expect(focused).toBe(`#/runs/${id}`);
    await page.keyboard.press("Enter");
    await page.waitForSelector(".timeline");
    expect(new URL(page.url()).hash).toBe(`#/runs/${id}`);
    await page.close();
    expect(problems).toEqual([]);
  });

  it.each([
    { scheme: "bearer", auth: 'auth: { type: bearer, tokens: ["${env:PAGE_SECRET}"] }', user: undefined },
    { scheme: "basic", auth: 'auth: { type: basic, users: { ann: "${env:PAGE_SECRET}" } }', user: "ann" },
  ])(
    "asks for the credential under $scheme auth, and sends it for the list and its live updates",
    async ({ auth, user }) => {
      const secured = mkdtempSync(join(tmpdir(), "bass-browser-auth-"));
      try {
        copySamples(secured);
        const config = join(secured, "bass.config.yaml");
        writeFileSync(config, readFileSync(config, "utf8").replace("auth: { type: none }", auth));
        const secret = "page-secret-1";
        const authorization =
          user === undefined
            ? `Bearer ${secret}`
            : `Basic ${Buffer.from(`${user}:${secret}`).toString("base64")}`;
        const server = await startServeInProcess(secured, { PAGE_SECRET: secret });
        const origin = `http://127.0.0.1:${server.port}`;
        try {
          const { page, problems } = await openPage(undefined, origin);
          // A login dialog of the browser's own would stop the page here: there must be none.
          page.on("dialog", (dialog) => problems.push(`dialog: ${dialog.message()}`));
          await page.goto(`${origin}/_bass/`);
          await page.getByRole("heading", { name: "This server needs a credential" }).waitFor();
          if (user !== undefined) await page.getByLabel("User").fill(user);
          await page.getByLabel(user === undefined ? "Token" : "Password").fill(secret);
          await page.getByRole("button", { name: "Continue" }).click();
          await page.getByRole("heading", { name: "Runs" }).waitFor();
          await page.waitForTimeout(300);
          const response = await fetch(`${origin}${createPath}`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization },
            body: JSON.stringify(person("Radia")),
          });
          expect(response.status).toBe(201);
          await page.waitForSelector("tr[data-run]", { timeout: 5000 });
          expect(await page.evaluate(() => sessionStorage.getItem("bass.authorization"))).toBe(authorization);
          await page.close();
          // The 401s before the credential was given are the browser's console errors; nothing else is.
          expect(problems.filter((problem) => !problem.includes("401"))).toEqual([]);
        } finally {
          await server.stop();
        }
      } finally {
        rmSync(secured, { recursive: true, force: true });
      }
    },
  );

  it("has no serious or critical accessibility violation (axe-core)", async () => {
    const id = await createCustomer("Frances");
    // axe is injected as a script of the test's own, which the page's policy would refuse.
    const context = await browser.newContext({ bypassCSP: true });
    const { page } = await openPage(context);
    const axe = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
    const other = await createCustomer("Ida");
    const views: [string, string][] = [
      ["#/", "table.runs"],
      [`#/runs/${id}`, ".timeline"],
      [`#/diff/${id}/${other}`, "table.diff"],
    ];
    for (const [width, [hash, ready]] of [1280, 420].flatMap((one) =>
      views.map((view) => [one, view] as const),
    )) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${base}/_bass/${hash}`);
      await page.waitForSelector(ready);
      // Every item opened: its request and answer are checked too.
      await page.$$eval(".timeline details", (all) => {
        for (const one of all) (one as HTMLDetailsElement).open = true;
      });
      await page.addScriptTag({ content: axe });
      const violations = await page.evaluate(async () => {
        const result = await (
          window as unknown as {
            axe: { run(): Promise<{ violations: { id: string; impact: string; help: string }[] }> };
          }
        ).axe.run();
        return result.violations
          .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
          .map((violation) => `${violation.id}: ${violation.help}`);
      });
      expect(violations, `${hash} at ${width} px`).toEqual([]);
    }
    await context.close();
  });
});

if (screenshots) mkdirSync(screenshots, { recursive: true });
