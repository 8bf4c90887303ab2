// The domain types every layer shares: what a run takes in (RunInput), and the run history record it
// leaves, one per run, masked before anything reads it.
import type { AdapterResponse } from "../adapters/adapter.js";
import type { RunFileInfo } from "./run-files.js";

export type RunStatus = "success" | "failure" | "running";
/** What starts a run: `bass run`, a request to serve, `bass test`, or a re-run of another run. */
export const runTriggers = ["cli", "http", "test", "rerun", "callint", "schedule"] as const;
export type RunTrigger = (typeof runTriggers)[number];

/** A byte-string payload as history keeps it: its length and the start of its text. */
export interface BytesPreview {
  bytes: number;
  preview: string;
}

export interface InputData {
  method: string;
  fullpath: string;
  path: Record<string, string>;
  params: Record<string, unknown>;
  headers: Record<string, string>;
  payload: unknown;
  /** Who serve let in (`{ id, username, email }`), or null: under no auth, and outside serve. */
  user?: RunUser | null;
  /** The request's files by field name (`bytes()` and `text()` in a cell; the record keeps name, type, size). */
  files?: Record<string, UploadedFile | UploadedFile[]>;
}

/** A file a request carried: a form's file, or a body of another type than JSON and XML. */
export interface UploadedFile {
  name: string;
  type: string;
  size: number;
  bytes: Uint8Array;
}

/**
 * The user of a run, in the platform's shape: `username` the basic-auth user, or `bearer:<first 8 hex of
 * the token's SHA-256>`; bass knows no user's id or e-mail, which are null.
 */
export interface RunUser {
  id: null;
  username: string;
  email: null;
}

export interface OutputData {
  status: number;
  headers: Record<string, string>;
  payload: unknown;
}

export interface RunError {
  code: string;
  message: string;
  /** The cell that threw, e.g. `service_requests[0].field_mappings[2].value`. */
  cell?: string | undefined;
  /** The definition file, as the process that ran it shows paths (relative to its working directory). */
  file?: string | undefined;
  /** 1-based line of the definition file. */
  line?: number | undefined;
}

interface ItemBase {
  seq: number;
  at: string;
}

export type Item =
  | (ItemBase & { kind: "INPUT"; data: InputData })
  | (ItemBase & {
      kind: "REQUEST";
      label: string;
      sridx: number | null;
      duration_ms: number;
      request: { service_name: string; payload: unknown };
      response: AdapterResponse | null;
    })
  | (ItemBase & { kind: "VALIDATION_FAILURE"; label: string; message: string; vridx: number | null })
  | (ItemBase & { kind: "DEBUG"; label?: string; data: unknown })
  | (ItemBase & { kind: "LOG"; level: "info" | "warn" | "error"; data: unknown })
  | (ItemBase & { kind: "FAILURE"; error: RunError })
  | (ItemBase & {
      kind: "CALLINT";
      run_id: string;
      integration: string;
      status: RunStatus;
      duration_ms: number;
    })
  | (ItemBase & { kind: "OUTPUT"; data: OutputData });

export type ItemKind = Item["kind"];

export interface RunRecord {
  id: string;
  integration: string;
  status: RunStatus;
  trigger: RunTrigger;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  labels: string[];
  async: boolean;
  /** The run this one ran again (trigger `rerun`). */
  rerun_of?: string;
  /** The run that started this one with callint (trigger `callint`). */
  parent_run?: string;
  /** The run's files, kept in `.bass/files/<run id>/`: its request's, and those its cells wrote. */
  files?: RunFileInfo[];
  items: Item[];
}

/** What comes in: the request body and, where there is one, the rest of the HTTP request. */
export interface RunInput {
  payload: unknown;
  method?: string | undefined;
  path?: Record<string, string> | undefined;
  params?: Record<string, unknown> | undefined;
  headers?: Record<string, string> | undefined;
  fullpath?: string | undefined;
  user?: RunUser | null | undefined;
  files?: Record<string, UploadedFile | UploadedFile[]> | undefined;
}
