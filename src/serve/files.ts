import { Readable } from "node:stream";
import busboy from "busboy";
import type { UploadedFile } from "../engine/types.js";

/** A `multipart/form-data` body: its fields as the payload, its files by field name. */
export type ParsedForm =
  | { ok: true; fields: Record<string, unknown>; files: Record<string, UploadedFile | UploadedFile[]> }
  | { ok: false; status: 400 | 415; detail: string };

/**
 * Reads a form body whole (it is within serve's body limit already) with busboy: each field into the
 * payload (a name given twice becomes a list), each file with its name, type and bytes. A field name of
 * `__proto__` is plain data.
 */
export function parseForm(body: Uint8Array, contentType: string): Promise<ParsedForm> {
  return new Promise((resolve) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { "content-type": contentType }, defParamCharset: "utf8" });
    } catch {
      resolve({ ok: false, status: 400, detail: "the multipart body has no boundary" });
      return;
    }
    const fields: Record<string, unknown> = Object.create(null);
    const files: Record<string, UploadedFile | UploadedFile[]> = Object.create(null);
    let pending = 0;
    let finished = false;
    const done = () => {
      if (finished && pending === 0) resolve({ ok: true, fields: { ...fields }, files: { ...files } });
    };
    parser.on("field", (name, value) => add(fields, name, value));
    parser.on("file", (name, stream, info) => {
      pending++;
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const bytes = new Uint8Array(Buffer.concat(chunks));
        add(files, name, { name: info.filename ?? name, type: info.mimeType, size: bytes.byteLength, bytes });
        pending--;
        done();
      });
    });
    parser.on("close", () => {
      finished = true;
      done();
    });
    parser.on("error", () =>
      resolve({ ok: false, status: 400, detail: "the multipart body is not well formed" }),
    );
    Readable.from([Buffer.from(body)]).pipe(parser);
  });
}

/** A body of another type than JSON, XML or a form: one file, named by Content-Disposition's filename. */
export function bodyAsFile(
  body: Uint8Array,
  contentType: string | undefined,
  disposition: string | undefined,
): UploadedFile {
  const filename = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition ?? "")?.[1];
  return {
    name: filename ? decodeURIComponent(filename) : "file",
    type: (contentType ?? "application/octet-stream").split(";", 1)[0]?.trim() || "application/octet-stream",
    size: body.byteLength,
    bytes: body,
  };
}

function add<T>(into: Record<string, T | T[]>, name: string, value: T): void {
  const before = Object.hasOwn(into, name) ? into[name] : undefined;
  into[name] =
    before === undefined ? value : Array.isArray(before) ? [...before, value] : [before as T, value];
}
