import type { RunInput, UploadedFile } from "../engine/types.js";
import type { Sealer } from "../state/seal.js";

/**
 * A run's request as it came, kept sealed with the state key beside its masked record, so that a re-run
 * is exact: the record holds only masked values. A byte-string body is kept as base64; `unkeptHeaders`
 * (serve's own credential) are left out.
 */
export function sealRequest(
  sealer: Sealer,
  runId: string,
  input: RunInput,
  unkeptHeaders: readonly string[] = [],
): string {
  const payload =
    input.payload instanceof Uint8Array
      ? { $bytes: Buffer.from(input.payload).toString("base64") }
      : input.payload;
  const headers = input.headers && withoutHeaders(input.headers, unkeptHeaders);
  const files = input.files && mapFiles(input.files, (file) => ({ ...file, bytes: base64(file.bytes) }));
  return sealer.seal(Buffer.from(JSON.stringify({ ...input, headers, payload, files })), context(runId));
}

function withoutHeaders(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  if (names.length === 0) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}

/** The request `sealRequest` kept for run `runId`, or undefined when it does not open with this key. */
export function openRequest(sealer: Sealer, runId: string, sealed: string): RunInput | undefined {
  const plain = sealer.open(sealed, context(runId));
  if (!plain) return undefined;
  const input = JSON.parse(plain.toString("utf8")) as RunInput;
  const bytes = (input.payload as { $bytes?: unknown } | null)?.$bytes;
  const files =
    input.files &&
    mapFiles(input.files, (file) => ({
      ...file,
      bytes: fromBase64(file.bytes as unknown as { $bytes: string }),
    }));
  const payload = typeof bytes === "string" ? new Uint8Array(Buffer.from(bytes, "base64")) : input.payload;
  return { ...input, payload, ...(files ? { files } : {}) };
}

type Files = NonNullable<RunInput["files"]>;

/** Each file of a request, changed by `change`. */
function mapFiles(files: Files, change: (file: UploadedFile) => UploadedFile): Files {
  return Object.fromEntries(
    Object.entries(files).map(([field, file]) => [
      field,
      Array.isArray(file) ? file.map(change) : change(file),
    ]),
  );
}

/** Bytes as JSON keeps them: base64 text. */
function base64(bytes: Uint8Array): Uint8Array {
  return { $bytes: Buffer.from(bytes).toString("base64") } as unknown as Uint8Array;
}

function fromBase64(encoded: { $bytes: string }): Uint8Array {
  return new Uint8Array(Buffer.from(encoded.$bytes, "base64"));
}

/** A sealed request opens only as the request of its own run. */
function context(runId: string): string {
  return `request\u0000${runId}`;
}
