import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { RunRecord } from "../../src/engine/record.js";
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
