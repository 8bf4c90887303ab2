import { describe, expect, it } from "vitest";
import { createRunFiles, maskedFiles } from "../../src/engine/run-files.js";
import { runDefinition } from "../_helpers.js";

const text = (value: string) => new TextEncoder().encode(value);

describe("a run's files", () => {
  it("starts with the request's files, a repeated name made unique", () => {
    const files = createRunFiles({
      statement: { name: "march.csv", type: "text/csv", size: 2, bytes: text("a1") },
      more: [
        { name: "march.csv", type: "text/csv", size: 2, bytes: text("b2") },
        { name: "../../etc/passwd", type: "text/plain", size: 1, bytes: text("x") },
      ],
    });
    expect(files.list()).toEqual(["march.csv", "march-2.csv", "passwd"]);
    expect(files.open("march-2.csv").read()).toBe("b2");
  });

  it("writes, appends and reads in text and binary modes", () => {
    const files = createRunFiles(undefined);
    const report = files.open("report.csv", "w");
    expect(report.write("id,amount\n")).toBe(10);
    report.close();
    files.open("report.csv", "a").write("1,12.30\n");
    expect(files.open("report.csv").read()).toBe("id,amount\n1,12.30\n");
    files.open("blob.bin", "wb").write(new Uint8Array([0, 255]));
    expect(files.open("blob.bin", "rb").read()).toEqual(new Uint8Array([0, 255]));
    files.open("report.csv", "w").write("new");
    expect(files.open("report.csv").read()).toBe("new");
    expect(files.all().map(({ name, type }) => [name, type])).toEqual([
      ["report.csv", "text/csv"],
      ["blob.bin", "application/octet-stream"],
    ]);
  });

  it("says what is wrong with a name, a mode, a missing or closed file", () => {
    const files = createRunFiles(undefined);
    expect(() => files.open("../x.txt", "w")).toThrow('open_file: "../x.txt" is not a file name');
    expect(() => files.open("x.txt", "rw")).toThrow('open_file: mode "rw" is not one of r, rb, w, wb, a, ab');
    expect(() => files.open("x.txt")).toThrow(
      'open_file: this run has no file "x.txt" (list_files() names its files)',
    );
    const handle = files.open("x.txt", "w");
    expect(() => handle.read()).toThrow('x.txt is open in mode "w", which cannot read');
    expect(() => handle.write(12)).toThrow("a file opened in text mode is written text");
    handle.close();
    expect(() => handle.write("a")).toThrow("open_file: x.txt is closed");
  });

  it("keeps a text file with its masked values masked, and no other file that holds one", () => {
    const masked = ["123-45-6789"];
    const { kept, infos } = maskedFiles(
      [
        { name: "note.txt", type: "text/plain", bytes: text("tax id 123-45-6789") },
        {
          name: "blob.bin",
          type: "application/octet-stream",
          bytes: new Uint8Array([0xff, ...text("123-45-6789")]),
        },
        { name: "plain.bin", type: "application/octet-stream", bytes: new Uint8Array([0xff, 1]) },
      ],
      masked,
      (value) => value.replaceAll("123-45-6789", "XXXXXXXXXXXX"),
    );
    expect(kept.map((file) => [file.name, Buffer.from(file.bytes).toString("latin1")])).toEqual([
      ["note.txt", "tax id XXXXXXXXXXXX"],
      ["plain.bin", "\xff\x01"],
    ]);
    expect(infos).toEqual([
      { name: "note.txt", type: "text/plain", size: 19 },
      { name: "blob.bin", type: "application/octet-stream", size: 12, kept: false },
      { name: "plain.bin", type: "application/octet-stream", size: 2 },
    ]);
  });
  it("keeps a file under its name masked, as its record names it", () => {
    const { kept, infos } = maskedFiles(
      [
        { name: "123-45-6789.txt", type: "text/plain", bytes: text("a") },
        { name: "987-65-4321.txt", type: "text/plain", bytes: text("b") },
      ],
      ["123-45-6789", "987-65-4321"],
      (value) => value.replaceAll(/\d{3}-\d{2}-\d{4}/g, "XXXXXXXXXXXX"),
    );
    expect(kept.map((file) => file.name)).toEqual(["XXXXXXXXXXXX.txt", "XXXXXXXXXXXX-2.txt"]);
    expect(infos.map((info) => info.name)).toEqual(["XXXXXXXXXXXX.txt", "XXXXXXXXXXXX-2.txt"]);
  });
});

describe("keeping a run's files", () => {
  const writer = "name: writer\non_success_hook: |\n  open_file('a.txt', 'w').write('hello')\n";

  it("gives the keeper the files and names them in the record", async () => {
    const kept: string[] = [];
    const result = await runDefinition(
      writer,
      { payload: {} },
      { files: { keep: async (id, files) => void kept.push(`${id}:${files.map((file) => file.name)}`) } },
    );
    expect(kept).toEqual([`${result.runId}:a.txt`]);
    expect(result.record.files).toEqual([{ name: "a.txt", type: "text/plain", size: 5 }]);
  });

  it("leaves a LOG item and a successful run when the files cannot be kept", async () => {
    const result = await runDefinition(
      writer,
      { payload: {} },
      { files: { keep: () => Promise.reject(new Error("disk full")) } },
    );
    expect(result.status).toBe("success");
    expect(result.record.files).toEqual([{ name: "a.txt", type: "text/plain", size: 5, kept: false }]);
    expect(result.record.items.find((item) => item.kind === "LOG")).toMatchObject({
      level: "warn",
      data: "the run's files were not kept: disk full",
    });
  });
});
