/** Past this many characters a batch is measured exactly instead of given room for 3 bytes each. */
const measureAbove = 1 << 20;
/** The largest buffer an encoder keeps for the next batch. */
const keepBytes = 4 << 20;

/** Turns a batch of lines into the bytes of one write. */
export interface LineEncoder {
  /** The lines as UTF-8, each followed by a newline; valid until the next call. */
  encode(lines: readonly string[]): Uint8Array;
}

/**
 * An encoder that writes each line straight into one buffer, instead of joining the lines and encoding
 * the join, and keeps that buffer for the next batch: a fresh one of a few hundred KiB per batch is
 * mapped anew and every page of it faulted in (bench/history.js). The store writes one batch at a time,
 * so the bytes it returned are written before the buffer is reused.
 */
export function createLineEncoder(): LineEncoder {
  let buffer = Buffer.alloc(0);
  return {
    encode(lines) {
      const size = byteRoom(lines);
      const into = size <= buffer.length ? buffer : Buffer.allocUnsafeSlow(size);
      if (size <= keepBytes) buffer = into;
      let length = 0;
      for (const line of lines) {
        length += into.write(line, length);
        into[length++] = 0x0a;
      }
      return into.subarray(0, length);
    },
  };
}

/** Bytes enough for the lines and their newlines as UTF-8. */
function byteRoom(lines: readonly string[]): number {
  let chars = lines.length;
  for (const line of lines) chars += line.length;
  // A UTF-16 code unit takes at most 3 bytes of UTF-8; a large batch is measured instead, sparing memory.
  if (chars <= measureAbove) return chars * 3;
  let size = lines.length;
  for (const line of lines) size += Buffer.byteLength(line);
  return size;
}
