/** The list of runs: filters, pages, and new runs as serve writes them. */
import { html } from "htm/preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { followRuns, getJson, type Integration, type RunSummary } from "./api.js";
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
  const [filters, setFilters] = useState<Filters>({ integration: "", status: "", label: "", q: "" });
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
      getJson<RunSummary[]>(query(filters, before)).then((page) => {
        if (asked === latest.current) setRuns(page);
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

  const set = (name: keyof Filters) => (event: Event) => {
    setPages([]);
    setFilters({ ...filters, [name]: (event.target as HTMLInputElement).value });
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
      <label>Text <input type="search" value=${filters.q} onChange=${set("q")} placeholder="an id, a message…" /></label>
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

function RunTable({ runs }: { runs: RunSummary[] }) {
  return html`
    <table class="runs">
      <caption class="visually-hidden">Runs, newest first</caption>
      <thead>
        <tr><th scope="col">Run</th><th scope="col">Integration</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Duration</th><th scope="col">Trigger</th><th scope="col">Labels</th></tr>
      </thead>
      <tbody>
        ${runs.map(
          (run) => html`
            <tr key=${run.id} data-run=${run.id}>
              <td><a href=${`#/runs/${run.id}`} class="mono">${run.id}</a></td>
              <td>${run.integration}</td>
              <td><span class=${`status ${run.status}`}>${run.status}</span></td>
              <td>${new Date(run.started_at).toLocaleString()}</td>
              <td>${formatDuration(run.duration_ms)}</td>
              <td>${run.trigger}${run.rerun_of ? " ↻" : ""}</td>
              <td>${run.labels.join(", ")}</td>
            </tr>
          `,
        )}
      </tbody>
    </table>
  `;
}
