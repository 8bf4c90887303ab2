/** The list of runs: filters, pages, and new runs as serve writes them. */
import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { summaryOf } from "../src/history/summary.js";
import { followRuns, getJson, type Integration, type RunRecord, type RunSummary } from "./api.js";
import { formatDuration } from "./format.js";

interface Filters {
  integration: string;
  status: string;
  label: string;
  q: string;
}

const pageSize = 25;
/** A text filter needs the whole record, which serve checks: the page asks again at most this often. */
const textRefreshMs = 1000;
/** Typing in the text filter searches once the typing pauses this long. */
const typingPauseMs = 250;

const noFilters: Filters = { integration: "", status: "", label: "", q: "" };

/** The filters a list's address holds (`#/?status=failure&q=…`), so that a filtered list can be shared. */
export function filtersOf(hash: string): Filters {
  const params = new URLSearchParams(hash.split("?")[1] ?? "");
  return {
    integration: params.get("integration") ?? "",
    status: params.get("status") ?? "",
    label: params.get("label") ?? "",
    q: params.get("q") ?? "",
  };
}

function addressOf(filters: Filters): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `#/?${text}` : "#/";
}

function query(filters: Filters, before?: string): string {
  const params = new URLSearchParams({ limit: String(pageSize) });
  for (const [name, value] of Object.entries(filters)) if (value) params.set(name, value);
  if (before) params.set("before", before);
  return `/_bass/runs?${params}`;
}

function matches(run: RunSummary, filters: Filters): boolean {
  return (
    (!filters.integration || run.integration === filters.integration) &&
    (!filters.status || run.status === filters.status) &&
    (!filters.label || run.labels.includes(filters.label))
  );
}

/** The shown runs with `run` as it is now: in its place by id if it matches, gone if it no longer does. */
function merge(shown: RunSummary[], run: RunSummary, filters: Filters): RunSummary[] {
  const others = shown.filter((candidate) => candidate.id !== run.id);
  if (!matches(run, filters)) return others;
  return [run, ...others].sort((a, b) => (a.id < b.id ? 1 : -1)).slice(0, pageSize);
}

/** The runs, newest first, a page at a time; the first page takes new runs as serve writes them. */
export function RunList({ fail }: { fail: (error: unknown) => void }) {
  const [filters, setFilters] = useState<Filters>(() => ({ ...noFilters, ...filtersOf(location.hash) }));
  const [pages, setPages] = useState<string[]>([]);
  const [runs, setRuns] = useState<RunSummary[] | undefined>(undefined);
  const [integrations, setIntegrations] = useState<Integration[]>([]);
  // Answers that come back out of order: only the newest request's counts.
  const latest = useRef(0);
  const before = pages.at(-1);

  useEffect(() => {
    getJson<Integration[]>("/_bass/integrations").then(setIntegrations, fail);
  }, [fail]);

  useEffect(() => {
    const load = () => {
      const asked = ++latest.current;
      getJson<RunRecord[]>(query(filters, before)).then((page) => {
        if (asked === latest.current) setRuns(page.map(summaryOf));
      }, fail);
    };
    setRuns(undefined);
    if (before) {
      load();
      return;
    }
    // The newest page: loaded now, and again each time the stream opens anew, so that no run written
    // while it was closed is missed.
    load();
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let opened = 0;
    void followRuns(
      (run) => {
        if (!filters.q) setRuns((shown) => merge(shown ?? [], run, filters));
        else
          timer ??= setTimeout(() => {
            timer = undefined;
            load();
          }, textRefreshMs);
      },
      () => {
        if (opened++ > 0) load();
      },
      stop.signal,
    );
    return () => {
      stop.abort();
      clearTimeout(timer);
    };
  }, [filters, before, fail]);

  const typing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const apply = (next: Filters) => {
    setPages([]);
    setFilters(next);
    // The address holds the filters without adding a page to go back through for each one.
    history.replaceState(null, "", addressOf(next));
  };
  const set = (name: keyof Filters) => (event: Event) =>
    apply({ ...filters, [name]: (event.target as HTMLInputElement).value });
  const type = (event: Event) => {
    const q = (event.target as HTMLInputElement).value;
    clearTimeout(typing.current);
    typing.current = setTimeout(() => apply({ ...filters, q }), typingPauseMs);
  };
  return html`
    <h1>Runs</h1>
    <form class="filters" role="search" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Integration
        <select value=${filters.integration} onChange=${set("integration")}>
          <option value="">all</option>
          ${integrations.map((one) => html`<option value=${one.name}>${one.name}</option>`)}
        </select>
      </label>
      <label>Status
        <select value=${filters.status} onChange=${set("status")}>
          <option value="">all</option>
          <option>success</option>
          <option>failure</option>
          <option>running</option>
        </select>
      </label>
      <label>Label <input value=${filters.label} onChange=${set("label")} /></label>
      <label>Text <input type="search" value=${filters.q} onInput=${type} placeholder="an id, a message…" /></label>
    </form>
    ${
      runs === undefined
        ? html`<p class="muted" aria-live="polite">Loading…</p>`
        : runs.length === 0
          ? html`<p class="muted">No runs${before ? " older than these" : " yet: call an endpoint, or run bass run"}.</p>`
          : html`<${RunTable} runs=${runs} />`
    }
    <nav class="pager" aria-label="pages">
      <button type="button" disabled=${pages.length === 0} onClick=${() => setPages([])}>Newest</button>
      <button type="button" disabled=${pages.length === 0} onClick=${() => setPages(pages.slice(0, -1))}>Newer</button>
      <button type="button" disabled=${!runs || runs.length < pageSize} onClick=${() => runs && setPages([...pages, (runs.at(-1) as RunSummary).id])}>Older</button>
    </nav>
  `;
}

/** The shown runs with each run's callint children right under it, and how deep each one sits. */
export function nested(runs: RunSummary[]): { run: RunSummary; depth: number }[] {
  const shown = new Set(runs.map((run) => run.id));
  const children = new Map<string, RunSummary[]>();
  for (const run of runs)
    if (run.parent_run && shown.has(run.parent_run))
      children.set(run.parent_run, [...(children.get(run.parent_run) ?? []), run]);
  const rows: { run: RunSummary; depth: number }[] = [];
  const add = (run: RunSummary, depth: number) => {
    rows.push({ run, depth });
    // A parent's children in the order they started.
    for (const child of (children.get(run.id) ?? []).toReversed()) add(child, depth + 1);
  };
  for (const run of runs) if (!run.parent_run || !shown.has(run.parent_run)) add(run, 0);
  return rows;
}

function RunTable({ runs }: { runs: RunSummary[] }) {
  return html`
    <div class="table-scroll" tabindex="0" role="region" aria-label="Runs">
    <table class="runs">
      <caption class="visually-hidden">Runs, newest first, each run's callint children under it</caption>
      <thead>
        <tr><th scope="col">Request</th><th scope="col">Status</th><th scope="col">Integration</th><th scope="col">Started</th><th scope="col">Duration</th><th scope="col">Trigger</th><th scope="col">Run</th></tr>
      </thead>
      <tbody>
        ${nested(runs).map(
          ({ run, depth }) => html`
            <tr key=${run.id} data-run=${run.id} data-parent=${run.parent_run} class=${depth ? "nested" : undefined} style=${depth ? `--depth: ${depth}` : undefined}>
              <td class="request">
                <a href=${`#/runs/${run.id}`}>
                  ${depth ? html`<span class="nest" aria-label="called by the run above">↳ </span>` : null}
                  ${run.method ? html`<span class="method">${run.method}</span> ` : null}<span class="mono path">${run.path ?? run.integration}</span>
                </a>
              </td>
              <td><span class=${`status ${run.status}`}>${run.http_status ?? ""} ${run.status}</span></td>
              <td>${run.integration}${run.labels.length ? html` <span class="muted">[${run.labels.join(", ")}]</span>` : null}</td>
              <td>${new Date(run.started_at).toLocaleString()}</td>
              <td>${formatDuration(run.duration_ms)}</td>
              <td>${run.trigger}${run.rerun_of ? " ↻" : ""}</td>
              <td class="mono id">${run.id}</td>
            </tr>
          `,
        )}
      </tbody>
    </table>
    </div>
  `;
}
