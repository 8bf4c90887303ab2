/** The admin routes the page reads, with the credential the user gave when serve asked for one. */

import type { RunSummary } from "../src/history/summary.js";

export type { RunSummary };

export interface Item {
  seq: number;
  kind: string;
  at: string;
  label?: string;
  duration_ms?: number;
  message?: string;
  level?: string;
  data?: unknown;
  request?: { service_name: string; payload: unknown };
  response?: { success: boolean; status?: number; payload: unknown; messages: string[] } | null;
  error?: { code: string; message: string; cell?: string; file?: string; line?: number };
  /** A CALLINT item's child run. */
  run_id?: string;
  integration?: string;
  status?: string;
}

export interface RunRecord extends RunSummary {
  ended_at: string | null;
  async: boolean;
  /** The run's files: its request's and those its cells wrote; `kept: false` for one not kept. */
  files?: { name: string; type: string; size: number; kept?: false }[];
  items: Item[];
}

export interface Integration {
  name: string;
  file: string;
  endpoints: { method: string; path: string }[];
  broken: boolean;
  active: boolean;
}

/** Thrown when serve wants a credential: the scheme its challenge names. */
export class NeedsCredential extends Error {
  constructor(readonly scheme: "Bearer" | "Basic") {
    super("serve needs a credential");
  }
}

const credentialKey = "bass.authorization";

/** The Authorization header the user gave, kept for this tab only. */
export function credential(): string | null {
  return sessionStorage.getItem(credentialKey);
}

export function setCredential(value: string | null): void {
  if (value === null) sessionStorage.removeItem(credentialKey);
  else sessionStorage.setItem(credentialKey, value);
}

/** A request to serve with the credential, if any; a 401 becomes `NeedsCredential`, other failures errors. */
export async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const given = credential();
  if (given) headers.set("authorization", given);
  // No credentials of the browser's own: it would show its login dialog for a basic-auth challenge, and
  // send what was typed there to any site's requests too. The page sends the header itself.
  const response = await fetch(path, { ...init, headers, credentials: "omit" });
  if (response.status === 401) {
    const challenge = response.headers.get("www-authenticate") ?? "";
    throw new NeedsCredential(/^basic/i.test(challenge) ? "Basic" : "Bearer");
  }
  if (!response.ok) {
    const problem = (await response.json().catch(() => ({}))) as { detail?: string };
    throw new Error(problem.detail ?? `${response.status} ${response.statusText}`);
  }
  return response;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await call(path)).json() as Promise<T>;
}

let project: Promise<string | undefined> | undefined;

/** The folder of the project serve serves (from its health), for a copied `bass run --project`. */
export function projectDir(): Promise<string | undefined> {
  project ??= getJson<{ project?: string }>("/_bass/health").then(
    (health) => health.project,
    () => undefined,
  );
  return project;
}

/**
 * Calls `onRun` with each run serve writes, read from the event stream with `fetch` (an EventSource cannot
 * send a credential), and `onOpen` each time the stream opens; reconnects after a pause until `signal`
 * aborts, or serve asks for a credential (the list's own request shows the form).
 */
export async function followRuns(
  onRun: (run: RunSummary) => void,
  onOpen: () => void,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    try {
      const response = await call("/_bass/events", { signal });
      onOpen();
      for await (const event of eventsOf(response.body as ReadableStream<Uint8Array>))
        if (event.name === "run") onRun(JSON.parse(event.data) as RunSummary);
    } catch (error) {
      if (signal.aborted || error instanceof NeedsCredential) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/** The server-sent events of a stream, each as it is whole, until the stream ends. */
async function* eventsOf(body: ReadableStream<Uint8Array>): AsyncGenerator<{ name: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
      const event = parseEvent(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (event) yield event;
    }
  }
}

function parseEvent(text: string): { name: string; data: string } | undefined {
  let name = "message";
  const data: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  return data.length ? { name, data: data.join("\n") } : undefined;
}
