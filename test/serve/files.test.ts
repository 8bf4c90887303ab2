import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { RunRecord } from "../../src/engine/types.js";
import { createServeApp } from "../../src/serve/app.js";
import { createTempDir, runCli } from "../_helpers.js";

const upload = `name: upload
endpoints:
  - { method: POST, path: /documents }
  - { method: PUT, path: /documents/one }
on_success_hook: |
  const file = input.files?.statement ?? input.files?.file
  const list = Array.isArray(file) ? file : [file]
  output.payload = {
    fields: input.payload,
    files: list.map((one) => ({ name: one.name, type: one.type, size: one.size, text: one.text(), first: one.bytes()[0] })),
  }
`;

async function createServe() {
  const dir = createTempDir({
    "bass.config.yaml": "systems: {}\nserve:\n  workers: 0\n",
    "integrations/upload.yaml": upload,
  });
  const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
  onTestFinished(() => app.close());
  const send = async (method: string, url: string, body: Uint8Array, headers: Record<string, string>) => {
    const reply = await app.handle({ method, url, headers: { host: "127.0.0.1:3000", ...headers }, body });
    return { ...reply, json: JSON.parse(Buffer.from(reply.body).toString("utf8")) };
  };
  return { app, dir, send };
}

/** A multipart/form-data body, as a browser's form sends it. */
async function form(parts: (data: FormData) => void) {
  const data = new FormData();
  parts(data);
  const request = new Request("http://x/", { method: "POST", body: data });
  return {
    body: new Uint8Array(await request.arrayBuffer()),
    contentType: request.headers.get("content-type") as string,
  };
}

describe("files under bass serve", () => {
  it("puts a form's fields in the payload and its files in input.files, and records no content", async () => {
    const { send, app } = await createServe();
    const { body, contentType } = await form((data) => {
      data.append("customer_id", "P000001");
      data.append("statement", new Blob(["2026-11,1250.00"], { type: "text/csv" }), "november.csv");
    });
    const reply = await send("POST", "/documents", body, { "content-type": contentType });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      fields: { customer_id: "P000001" },
      files: [{ name: "november.csv", type: "text/csv", size: 15, text: "2026-11,1250.00", first: 50 }],
    });
    const record = (await app.history.read(reply.runId as string)) as RunRecord;
    expect(record.items[0]).toMatchObject({
      kind: "INPUT",
      data: { files: { statement: { name: "november.csv", type: "text/csv", size: 15 } } },
    });
    expect(JSON.stringify(record.items[0])).not.toContain("1250.00");
  });

  it("takes a body of another type as one file, named by Content-Disposition", async () => {
    const { send } = await createServe();
    const reply = await send("POST", "/documents", new Uint8Array(Buffer.from("%PDF-1.7")), {
      "content-type": "application/pdf",
      "content-disposition": 'attachment; filename="contract.pdf"',
    });
    expect(reply.json).toEqual({
      fields: {},
      files: [{ name: "contract.pdf", type: "application/pdf", size: 8, text: "%PDF-1.7", first: 37 }],
    });
  });

  it("refuses a PUT with more than one file (415)", async () => {
    const { send } = await createServe();
    const { body, contentType } = await form((data) => {
      data.append("a", new Blob(["1"]), "a.txt");
      data.append("b", new Blob(["2"]), "b.txt");
    });
    const reply = await send("PUT", "/documents/one", body, { "content-type": contentType });
    expect(reply.status).toBe(415);
    expect(reply.json.detail).toBe("a PUT carries one file at most, and this one has 2");
  });

  it("re-runs a request with its files exactly", async () => {
    const { send } = await createServe();
    const { body, contentType } = await form((data) => data.append("statement", new Blob(["abc"]), "s.txt"));
    const first = await send("POST", "/documents", body, { "content-type": contentType });
    const again = await send("POST", `/_bass/runs/${first.runId}/rerun`, new Uint8Array(), {});
    expect(again.json).toMatchObject({ status: 200, exact: true });
  });
});

describe("bass run --file", () => {
  it("sends files by field name, as a form would", async () => {
    const dir = createTempDir({ "bass.config.yaml": "systems: {}\n", "integrations/upload.yaml": upload });
    writeFileSync(join(dir, "march.csv"), "2026-03,10.00");
    const run = await runCli(["run", "upload", "--file", "statement=march.csv", "--json"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).output.payload.files).toEqual([
      { name: "march.csv", type: "text/csv", size: 13, text: "2026-03,10.00", first: 50 },
    ]);
    const bad = await runCli(["run", "upload", "--file", "march.csv"], { cwd: dir });
    expect([bad.code, bad.stderr]).toEqual([2, 'bass: --file takes name=PATH, not "march.csv"\n']);
  });
});

const report = `name: report
endpoints:
  - { method: POST, path: /reports }
masks:
  - { type: INPUT, field: tax_id }
on_success_hook: |
  const rows = open_file('statement.csv').read().trim().split('\\n')
  const out = open_file('report.txt', 'w')
  out.write('rows: ' + rows.length + '\\n')
  out.write('tax id: ' + input.payload.tax_id + '\\n')
  out.close()
  open_file('raw.bin', 'wb').write(new Uint8Array([0xff, 0xfe]))
  output.payload = { files: list_files() }
`;

describe("open_file and list_files", () => {
  for (const workers of [0, 2]) {
    it(`keeps a run's files with its record, masked, and serves them for download (workers: ${workers})`, async () => {
      const dir = createTempDir({
        "bass.config.yaml": `systems: {}\nserve:\n  workers: ${workers}\n`,
        "integrations/report.yaml": report,
      });
      const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
      onTestFinished(() => app.close());
      const { body, contentType } = await form((data) => {
        data.append("tax_id", "123-45-6789");
        data.append("statement", new Blob(["a,1\nb,2\n"], { type: "text/csv" }), "statement.csv");
      });
      const reply = await app.handle({
        method: "POST",
        url: "/reports",
        headers: { host: "127.0.0.1:3000", "content-type": contentType },
        body,
      });
      expect(JSON.parse(Buffer.from(reply.body).toString())).toEqual({
        files: ["statement.csv", "report.txt", "raw.bin"],
      });
      await app.history.flush();
      const id = reply.runId as string;
      const record = (await app.history.read(id)) as RunRecord;
      expect(record.files).toEqual([
        { name: "statement.csv", type: "text/csv", size: 8 },
        { name: "report.txt", type: "text/plain", size: 29 },
        { name: "raw.bin", type: "application/octet-stream", size: 2 },
      ]);
      const kept = join(dir, ".bass/files", id);
      expect(readFileSync(join(kept, "report.txt"), "utf8")).toBe("rows: 2\ntax id: XXXXXXXXXXXX\n");
      expect(readFileSync(join(kept, "statement.csv"), "utf8")).toBe("a,1\nb,2\n");

      const download = await app.handle({
        method: "GET",
        url: `/_bass/runs/${id}/files/report.txt`,
        headers: { host: "127.0.0.1:3000" },
        body: new Uint8Array(),
      });
      expect(download.status).toBe(200);
      expect(download.headers).toMatchObject({
        "content-type": "text/plain",
        "content-disposition": "attachment; filename*=UTF-8''report.txt",
        "content-security-policy": "sandbox",
      });
      expect(Buffer.from(download.body).toString()).toBe("rows: 2\ntax id: XXXXXXXXXXXX\n");
      const missing = await app.handle({
        method: "GET",
        url: `/_bass/runs/${id}/files/..%2Fbass.config.yaml`,
        headers: { host: "127.0.0.1:3000" },
        body: new Uint8Array(),
      });
      expect(missing.status).toBe(404);
    });
  }

  it("keeps no files where the project keeps no payloads, yet the run has them", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nhistory:\n  store_payloads: false\n",
      "integrations/report.yaml": report,
    });
    writeFileSync(join(dir, "statement.csv"), "a,1\n");
    const run = await runCli(["run", "report", "--file", "statement=statement.csv", "--json"], { cwd: dir });
    expect(JSON.parse(run.stdout).output.payload).toEqual({
      files: ["statement.csv", "report.txt", "raw.bin"],
    });
    expect(existsSync(join(dir, ".bass/files"))).toBe(false);
  });

  it("keeps bass run's files, and removes them when history prunes their record", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nhistory:\n  max_runs: 1\n",
      "integrations/report.yaml": report,
    });
    writeFileSync(join(dir, "statement.csv"), "a,1\n");
    const first = await runCli(["run", "report", "--file", "statement=statement.csv", "--json"], {
      cwd: dir,
    });
    const firstId = JSON.parse(first.stdout).run_id as string;
    expect(readdirSync(join(dir, ".bass/files", firstId)).sort()).toEqual([
      "raw.bin",
      "report.txt",
      "statement.csv",
    ]);
    for (let count = 0; count < 2; count++)
      await runCli(["run", "report", "--file", "statement=statement.csv"], { cwd: dir });
    expect(existsSync(join(dir, ".bass/files", firstId))).toBe(false);
    expect(readdirSync(join(dir, ".bass/files"))).toHaveLength(1);
  });
});
