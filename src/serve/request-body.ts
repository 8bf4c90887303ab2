import type { UploadedFile } from "../engine/types.js";
import { parseBody } from "./body.js";
import { bodyAsFile, parseForm } from "./files.js";

/** A request's body as a run takes it: the payload, and the files it carried. */
export type RequestBody =
  | { ok: true; payload: unknown; files?: Record<string, UploadedFile | UploadedFile[]> }
  | { ok: false; status: 400 | 415; detail: string };

const writes = new Set(["PUT", "PATCH"]);

/**
 * JSON and XML into the payload; a form's fields (multipart or url-encoded) into the payload and its files
 * by field name; a body of
 * any other type is one file, `files.file`, with the payload `{}`. A PUT or PATCH replaces one thing, so
 * it may carry one file at most (else 415).
 */
export async function readRequestBody(
  body: Uint8Array,
  headers: { method: string; contentType: string | undefined; disposition: string | undefined },
): Promise<RequestBody> {
  const { contentType } = headers;
  const essence = (contentType ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
  if (essence === "multipart/form-data" || essence === "application/x-www-form-urlencoded") {
    const form = await parseForm(body, contentType as string);
    if (!form.ok) return form;
    const count = Object.values(form.files).flat().length;
    if (writes.has(headers.method) && count > 1)
      return {
        ok: false,
        status: 415,
        detail: `a ${headers.method} carries one file at most, and this one has ${count}`,
      };
    return { ok: true, payload: form.fields, files: form.files };
  }
  const parsed = parseBody(body, contentType, { maxDepth: 64 });
  if (parsed.ok) return { ok: true, payload: parsed.value };
  if (parsed.status !== 415) return parsed;
  return { ok: true, payload: {}, files: { file: bodyAsFile(body, contentType, headers.disposition) } };
}
