/** What went wrong, as a stable code that callers branch on. */
export type BassErrorCode = "USAGE" | "FILE_NOT_FOUND" | "FILE_UNREADABLE" | "PROJECT_NOT_FOUND";

/** Where a problem sits in a file, 1-based. */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

/** The one error bass throws when work cannot go on; `cli/main.ts` turns it into a message and an exit code. */
export class BassError extends Error {
  override readonly name = "BassError";
  readonly code: BassErrorCode;
  readonly position: SourcePosition | undefined;

  constructor(code: BassErrorCode, message: string, position?: SourcePosition) {
    super(message);
    this.code = code;
    this.position = position;
  }
}

/** Whether a thrown value is a BassError. */
export function isBassError(value: unknown): value is BassError {
  return value instanceof BassError;
}
