/**
 * What a list of runs shows of each: who ran it, and for a request, its method, path and answer. Pure, so
 * that the run history page and serve's event stream make it alike from a record.
 */

/** What a record and its summary both say of a run. */
interface RunFacts {
  id: string;
  integration: string;
  status: string;
  trigger: string;
  started_at: string;
  duration_ms: number | null;
  labels: string[];
}

/** The part of a record a summary reads; the page's own record type has it too. */
export interface SummarizedRecord extends RunFacts {
  rerun_of?: string | undefined;
  parent_run?: string | undefined;
  items: readonly { kind: string; data?: unknown }[];
}

export interface RunSummary extends RunFacts {
  rerun_of?: string;
  /** The run that called this one (callint). */
  parent_run?: string;
  /** The request's method and path with its query, where the run had one. */
  method?: string;
  path?: string;
  /** The status of the run's answer, once it has one. */
  http_status?: number;
}

export function summaryOf(record: SummarizedRecord): RunSummary {
  const { id, integration, status, trigger, started_at, duration_ms, labels, rerun_of, parent_run } = record;
  const summary: RunSummary = { id, integration, status, trigger, started_at, duration_ms, labels };
  if (rerun_of) summary.rerun_of = rerun_of;
  if (parent_run) summary.parent_run = parent_run;
  const input = record.items.find((item) => item.kind === "INPUT")?.data as
    | { method?: unknown; fullpath?: unknown }
    | undefined;
  if (typeof input?.method === "string") summary.method = input.method;
  if (typeof input?.fullpath === "string" && input.fullpath) summary.path = input.fullpath;
  const output = record.items.findLast((item) => item.kind === "OUTPUT")?.data as
    | { status?: unknown }
    | undefined;
  if (typeof output?.status === "number") summary.http_status = output.status;
  return summary;
}
