import { isNativeError } from "node:util/types";

/** What went wrong, as a stable code that callers branch on. */
export type BassErrorCode =
  | "USAGE"
  | "FILE_NOT_FOUND"
  | "FILE_UNREADABLE"
  | "PROJECT_NOT_FOUND"
  | "DEFINITION_INVALID"
  | "INTEGRATION_NOT_FOUND"
  | "INTEGRATION_INACTIVE"
  | "INPUT_INVALID"
  | "ADAPTER_UNAVAILABLE"
  | "CELL_ERROR"
  | "CELL_TIMEOUT"
  | "CELL_MEMORY"
  | "CALLINT_DEPTH"
  | "VAULT_BUSY"
  | "MAPPING_FAILED"
  | "RUN_NOT_FOUND"
  | "PROJECT_INVALID"
  | "HISTORY_UNWRITABLE";

/** Errors a cell may meet that its run's FAILURE item names by their own code, not `cell_error`. */
export const runFailureCodes: ReadonlySet<BassErrorCode> = new Set(["CALLINT_DEPTH", "VAULT_BUSY"]);

/** Where a problem sits in a file, 1-based. */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export interface BassErrorOptions {
  position?: SourcePosition | undefined;
  /** The cell that threw, e.g. `service_requests[0].after_execute_request_success_hook`. */
  cell?: string | undefined;
  cause?: unknown;
}

/** The one error bass throws when work cannot go on; `cli/main.ts` turns it into a message and an exit code. */
export class BassError extends Error {
  override readonly name = "BassError";
  readonly code: BassErrorCode;
  readonly position: SourcePosition | undefined;
  readonly cell: string | undefined;

  constructor(code: BassErrorCode, message: string, options: BassErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.position = options.position;
    this.cell = options.cell;
  }
}

/** A thrown value's message: an Error's of any realm (a cell's), else the value as text. */
export function errorMessage(error: unknown): string {
  return isNativeError(error) ? error.message : String(error);
}

/** Whether a thrown value is a BassError. */
export function isBassError(value: unknown): value is BassError {
  return value instanceof BassError;
}
