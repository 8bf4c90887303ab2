/** Past this many characters a batch is measured exactly instead of given room for 3 bytes each. */
const measureAbove = 1 << 20;

/**
 * A batch of lines as UTF-8, each followed by a newline: the bytes of one write. Each line is written
 * straight into the buffer: joining the lines first would copy the whole batch once more.
 */
export function encodeLines(lines: readonly string[]): Uint8Array {
  const into = Buffer.allocUnsafe(byteRoom(lines));
  let length = 0;
  for (const line of lines) {
    length += into.write(line, length);
    into[length++] = 0x0a;
  }
  return into.subarray(0, length);
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
