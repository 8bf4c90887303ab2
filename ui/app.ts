/** The run history page: the list of runs, one run's timeline, the difference of two runs. */
import { html, render } from "htm/preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import {
  call,
  followRuns,
  getJson,
  type Integration,
  type Item,
  NeedsCredential,
  type RunRecord,
  type RunSummary,
  setCredential,
} from "./api.js";
import { asBassRun, asCurl, barOf, diffRuns, formatDuration } from "./format.js";

type Route = { page: "list" } | { page: "run"; id: string } | { page: "diff"; a: string; b: string };

function routeOf(hash: string): Route {
  const run = /^#\/runs\/(\w{26})$/.exec(hash);
  if (run) return { page: "run", id: run[1] as string };
  const diff = /^#\/diff\/(\w{26})\/(\w{26})$/.exec(hash);
  if (diff) return { page: "diff", a: diff[1] as string, b: diff[2] as string };
  return { page: "list" };
}

function useRoute(): Route {
  const [route, setRoute] = useState(routeOf(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(routeOf(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

/** Errors the page shows: a credential serve asks for is a form, anything else a message. */
function useFailure() {
  const [failure, setFailure] = useState<unknown>(undefined);
  return {
    failure,
    fail: useCallback((error: unknown) => setFailure(error), []),
    clear: () => setFailure(undefined),
  };
}

function App() {
  const route = useRoute();
  const { failure, fail, clear } = useFailure();
  // Bumped when a credential is given: every view loads again with it.
  const [generation, setGeneration] = useState(0);
  const retry = () => {
    clear();
    setGeneration(generation + 1);
  };
  let view = html`<${RunList} fail=${fail} key=${generation} />`;
  if (route.page === "run")
    view = html`<${RunView} id=${route.id} fail=${fail} key=${`${route.id}-${generation}`} />`;
  if (route.page === "diff")
    view = html`<${DiffView} a=${route.a} b=${route.b} fail=${fail} key=${`${route.a}-${route.b}-${generation}`} />`;
  return html`
    <header class="top">
      <a class="brand" href="#/">bass</a>
      <span class="muted">run history</span>
    </header>
    <main id="main">
      ${
        failure instanceof NeedsCredential
          ? html`<${CredentialForm} scheme=${failure.scheme} done=${retry} />`
          : failure
            ? html`<p class="error" role="alert">${String((failure as Error).message ?? failure)}</p>`
            : null
      }
      ${failure instanceof NeedsCredential ? null : view}
    </main>
  `;
}

/** Serve asked for a credential: the user gives it once, for this tab. */
function CredentialForm({ scheme, done }: { scheme: "Bearer" | "Basic"; done: () => void }) {
  const [token, setToken] = useState("");
  const [user, setUser] = useState("");
  const submit = (event: Event) => {
    event.preventDefault();
    setCredential(scheme === "Bearer" ? `Bearer ${token}` : `Basic ${btoa(`${user}:${token}`)}`);
    done();
  };
  return html`
    <form class="card credential" onSubmit=${submit}>
      <h1>This server needs a credential</h1>
      <p>It is kept for this tab only and sent as the Authorization header.</p>
      ${
        scheme === "Basic"
          ? html`<label>User <input autocomplete="username" value=${user} onInput=${(e: InputEvent) => setUser((e.target as HTMLInputElement).value)} /></label>`
          : null
      }
      <label>${scheme === "Bearer" ? "Token" : "Password"}
        <input type="password" autocomplete="current-password" value=${token} onInput=${(e: InputEvent) => setToken((e.target as HTMLInputElement).value)} required />
      </label>
      <button type="submit">Continue</button>
    </form>
  `;
}

interface Filters {
  integration: string;
  status: string;
  label: string;
  q: string;
}

const pageSize = 25;

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

/** The runs, newest first, a page at a time; the first page takes new runs as serve writes them. */
function RunList({ fail }: { fail: (error: unknown) => void }) {
  const [filters, setFilters] = useState<Filters>({ integration: "", status: "", label: "", q: "" });
  const [pages, setPages] = useState<string[]>([]);
  const [runs, setRuns] = useState<RunSummary[] | undefined>(undefined);
  const [integrations, setIntegrations] = useState<Integration[]>([]);
  const before = pages.at(-1);

  useEffect(() => {
    getJson<Integration[]>("/_bass/integrations").then(setIntegrations, fail);
  }, [fail]);
  useEffect(() => {
    setRuns(undefined);
    getJson<RunSummary[]>(query(filters, before)).then(setRuns, fail);
  }, [filters, before, fail]);
  useEffect(() => {
    if (before) return;
    const stop = new AbortController();
    void followRuns((run) => {
      // A text filter needs the whole record, which serve checks: the page asks again.
      if (filters.q) {
        getJson<RunSummary[]>(query(filters)).then(setRuns, fail);
        return;
      }
      if (!matches(run, filters)) return;
      setRuns((shown) => {
        const others = (shown ?? []).filter((candidate) => candidate.id !== run.id);
        return [run, ...others].sort((x, y) => (x.id < y.id ? 1 : -1)).slice(0, pageSize);
      });
    }, stop.signal);
    return () => stop.abort();
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

/** One run: its header, what can be done with it, and its items as a waterfall. */
function RunView({ id, fail }: { id: string; fail: (error: unknown) => void }) {
  const [record, setRecord] = useState<RunRecord | undefined>(undefined);
  const [note, setNote] = useState<{ text: string; shown?: string } | undefined>(undefined);
  const [other, setOther] = useState("");
  useEffect(() => {
    getJson<RunRecord>(`/_bass/runs/${id}`).then(setRecord, fail);
  }, [id, fail]);
  if (!record) return html`<p class="muted" aria-live="polite">Loading run ${id}…</p>`;

  const rerun = async () => {
    try {
      const answer = (await (await call(`/_bass/runs/${id}/rerun`, { method: "POST" })).json()) as {
        run_id: string;
        masked: string[];
      };
      location.hash = `#/runs/${answer.run_id}`;
    } catch (error) {
      fail(error);
    }
  };
  const copy = async (what: string, text: string) => {
    const copied = await navigator.clipboard?.writeText(text).then(
      () => true,
      () => false,
    );
    setNote({ text: copied ? `${what} copied` : `${what}:`, shown: text });
  };
  const download = async () => {
    try {
      const blob = await (await call(`/_bass/runs/${id}/case`)).blob();
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = `${record.integration}.${record.id}.test.yaml`;
      link.click();
      URL.revokeObjectURL(link.href);
      setNote({ text: "test case downloaded" });
    } catch (error) {
      fail(error);
    }
  };
  const compareWith = other.trim() || record.rerun_of || "";
  return html`
    <nav aria-label="breadcrumb"><a href="#/">← all runs</a></nav>
    <h1 class="mono">${record.id}</h1>
    <dl class="facts">
      <div><dt>Integration</dt><dd>${record.integration}</dd></div>
      <div><dt>Status</dt><dd><span class=${`status ${record.status}`}>${record.status}</span></dd></div>
      <div><dt>Started</dt><dd>${new Date(record.started_at).toLocaleString()}</dd></div>
      <div><dt>Duration</dt><dd>${formatDuration(record.duration_ms)}</dd></div>
      <div><dt>Trigger</dt><dd>${record.trigger}</dd></div>
      ${record.labels.length ? html`<div><dt>Labels</dt><dd>${record.labels.join(", ")}</dd></div>` : null}
      ${
        record.rerun_of
          ? html`<div><dt>Re-run of</dt><dd><a class="mono" href=${`#/runs/${record.rerun_of}`}>${record.rerun_of}</a></dd></div>`
          : null
      }
    </dl>
    <div class="actions">
      <button type="button" onClick=${rerun} disabled=${record.status === "running"}>Re-run</button>
      <button type="button" onClick=${() => copy("bass run command", asBassRun(record))}>Copy as bass run</button>
      <button type="button" onClick=${() => copy("curl command", asCurl(record, location.origin))}>Copy as curl</button>
      <button type="button" onClick=${download} disabled=${record.status === "running"}>Download as test case</button>
      <form class="compare" onSubmit=${(e: Event) => {
        e.preventDefault();
        if (/^\w{26}$/.test(compareWith)) location.hash = `#/diff/${compareWith}/${record.id}`;
      }}>
        <label>Compare with run <input class="mono" size="28" value=${other} placeholder=${record.rerun_of ?? "a run id"} onInput=${(e: InputEvent) => setOther((e.target as HTMLInputElement).value)} /></label>
        <button type="submit">Compare</button>
      </form>
    </div>
    ${note ? html`<div class="note" role="status"><p>${note.text}</p>${note.shown ? html`<pre>${note.shown}</pre>` : null}</div>` : null}
    <h2>Timeline</h2>
    <ol class="timeline">
      ${record.items.map((item) => html`<${ItemRow} item=${item} record=${record} key=${item.seq} />`)}
    </ol>
  `;
}

/** What an item says in one line: its label, a call's status, a failure's code and place. */
function summaryOf(item: Item): string {
  switch (item.kind) {
    case "INPUT": {
      const data = item.data as { method: string; fullpath: string };
      return `${data.method} ${data.fullpath}`;
    }
    case "REQUEST":
      return `${item.label} ${item.response?.success ? "✓" : "✗"} ${item.response?.status ?? "no response"}`;
    case "OUTPUT":
      return String((item.data as { status: number }).status);
    case "FAILURE": {
      const error = item.error;
      const place =
        error?.line === undefined ? "" : ` at ${error.file ? `${error.file}:` : "line "}${error.line}`;
      return `${error?.code}${error?.cell ? ` in ${error.cell}` : ""}${place}`;
    }
    case "LOG":
      return item.level ?? "";
    default:
      return item.label ?? "";
  }
}

/** The item's data as the record holds it (masked), without what the line above says already. */
function detailOf(item: Item): unknown {
  const { seq: _seq, kind: _kind, at: _at, label: _label, ...rest } = item;
  const keys = Object.keys(rest);
  return keys.length === 1 && keys[0] === "data" ? rest.data : rest;
}

function ItemRow({ item, record }: { item: Item; record: RunRecord }) {
  const bar = barOf(item, record);
  const why =
    item.kind === "VALIDATION_FAILURE"
      ? item.message
      : item.kind === "FAILURE"
        ? item.error?.message
        : item.kind === "REQUEST" && item.response && !item.response.success
          ? item.response.messages.join("; ")
          : undefined;
  return html`
    <li class=${`item ${item.kind.toLowerCase()}`}>
      <details>
        <summary>
          <span class="seq">${item.seq}</span>
          <span class="kind">${item.kind}</span>
          <span class="what">${summaryOf(item)}</span>
          <span class="when">${item.kind === "REQUEST" ? formatDuration(item.duration_ms) : ""}</span>
          <span class="track" aria-hidden="true"><span class="bar" style=${`left:${bar.left}%;width:${bar.width}%`}></span></span>
        </summary>
        <pre>${JSON.stringify(detailOf(item), null, 2)}</pre>
      </details>
      ${why ? html`<p class="why">${why}</p>` : null}
    </li>
  `;
}

/** Two runs side by side: every path where they differ, times and ids aside. */
function DiffView({ a, b, fail }: { a: string; b: string; fail: (error: unknown) => void }) {
  const [records, setRecords] = useState<[RunRecord, RunRecord] | undefined>(undefined);
  useEffect(() => {
    Promise.all([getJson<RunRecord>(`/_bass/runs/${a}`), getJson<RunRecord>(`/_bass/runs/${b}`)]).then(
      (pair) => setRecords(pair as [RunRecord, RunRecord]),
      fail,
    );
  }, [a, b, fail]);
  const changes = useMemo(() => (records ? diffRuns(records[0], records[1]) : []), [records]);
  if (!records) return html`<p class="muted" aria-live="polite">Loading…</p>`;
  return html`
    <nav aria-label="breadcrumb"><a href="#/">← all runs</a></nav>
    <h1>Difference of two runs</h1>
    ${
      changes.length === 0
        ? html`<p>The two runs did the same, times and ids aside.</p>`
        : html`
          <table class="diff">
            <thead>
              <tr>
                <th scope="col">Where</th>
                <th scope="col"><a class="mono" href=${`#/runs/${a}`}>${a}</a></th>
                <th scope="col"><a class="mono" href=${`#/runs/${b}`}>${b}</a></th>
              </tr>
            </thead>
            <tbody>
              ${changes.map(
                (change) => html`
                  <tr key=${change.path}>
                    <th scope="row" class="mono">${change.path}</th>
                    <td class="removed">${change.a ?? "—"}</td>
                    <td class="added">${change.b ?? "—"}</td>
                  </tr>
                `,
              )}
            </tbody>
          </table>
        `
    }
  `;
}

render(html`<${App} />`, document.getElementById("app") as HTMLElement);
