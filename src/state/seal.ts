import { createCipheriv, createDecipheriv } from "node:crypto";
import { createRandomPool } from "../random-pool.js";

/**
 * What bass keeps at rest that must not be read from its files (stored answers, a run's request), sealed
 * with AES-256-GCM under the project's state key. `context` binds a sealed text to where it belongs (an
 * entry's key): text moved to another place does not open.
 */
export interface Sealer {
  seal(plain: Uint8Array, context: string): string;
  /** The plain bytes, or undefined for text that was not sealed with this key and context, or was changed. */
  open(sealed: string, context: string): Buffer | undefined;
}

const ivBytes = 12;
const tagBytes = 16;
/** A version in front of the text, so that another scheme can come later without misreading this one. */
const prefix = "v1.";

export function createSealer(key: Uint8Array): Sealer {
  if (key.byteLength !== 32) throw new RangeError("a state key is 32 bytes");
  // Random 96-bit IVs, each handed out once, as GCM asks; from a pool, since serve seals every request.
  const random = createRandomPool();
  return {
    seal(plain, context) {
      const iv = random.bytes(ivBytes);
      const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(context, "utf8"));
      const data = Buffer.concat([cipher.update(plain), cipher.final()]);
      return prefix + Buffer.concat([iv, cipher.getAuthTag(), data]).toString("base64");
    },
    open(sealed, context) {
      if (!sealed.startsWith(prefix)) return undefined;
      const bytes = Buffer.from(sealed.slice(prefix.length), "base64");
      if (bytes.byteLength < ivBytes + tagBytes) return undefined;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, ivBytes))
          .setAAD(Buffer.from(context, "utf8"))
          .setAuthTag(bytes.subarray(ivBytes, ivBytes + tagBytes));
        return Buffer.concat([decipher.update(bytes.subarray(ivBytes + tagBytes)), decipher.final()]);
      } catch {
        return undefined;
      }
    },
  };
}
