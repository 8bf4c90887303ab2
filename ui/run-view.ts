/** One run: its facts, what can be done with it, and its items as a waterfall. */
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import { call, getJson, type Item, projectDir, type RunRecord } from "./api.js";
import { asBassRun, asCurl, barOf, formatBytes, formatDuration, maskedFields } from "./format.js";
import { JsonView } from "./json-view.js";

/** What the page learnt of a re-run it made (the masked fields it went with), shown on the new run. */
const rerunNotes = new Map<string, string>();

/** One run: its header, what can be done with it, and its items as a waterfall. */
export function RunView({ id, fail }: { id: string; fail: (error: unknown) => void }) {
  const [record, setRecord] = useState<RunRecord | undefined>(undefined);
  const [note, setNote] = useState<{ text: string; shown?: string } | undefined>(undefined);
  const [other, setOther] = useState("");
  const [rerunning, setRerunning] = useState(false);
  useEffect(() => {
    getJson<RunRecord>(`/_bass/runs/${id}`).then(setRecord, fail);
  }, [id, fail]);
  if (!record) return html`<p class="muted" aria-live="polite">Loading run ${id}…</p>`;

  const rerun = async () => {
    setRerunning(true);
    try {
      const answer = (await (await call(`/_bass/runs/${id}/rerun`, { method: "POST" })).json()) as {
        run_id: string;
        exact: boolean;
        masked: string[];
      };
      // A re-run that could not send the request as it came says which values went masked.
      if (!answer.exact && answer.masked.length)
        rerunNotes.set(
          answer.run_id,
          `Re-run with the masked request of its record: ${answer.masked.join(", ")} went masked.`,
        );
      location.hash = `#/runs/${answer.run_id}`;
    } catch (error) {
      fail(error);
    } finally {
      setRerunning(false);
    }
  };
  const copy = async (what: string, text: string) => {
    const copied = await navigator.clipboard?.writeText(text).then(
      () => true,
      () => false,
    );
    setNote({ text: copied ? `${what} copied` : `${what}:`, shown: text });
  };
  // Fetched with the credential, then saved: a plain link would go without it.
  const download = async (path: string, name: string, what: string) => {
    try {
      const blob = await (await call(path)).blob();
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = name;
      link.click();
      // Some browsers read the blob after click() returns.
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      setNote({ text: `${what} downloaded` });
    } catch (error) {
      fail(error);
    }
  };
  const compareWith = other.trim() || record.rerun_of || "";
  const masked = maskedFields(record);
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
        record.parent_run
          ? html`<div><dt>Called by</dt><dd><a class="mono" href=${`#/runs/${record.parent_run}`}>${record.parent_run}</a></dd></div>`
          : null
      }
      ${
        record.rerun_of
          ? html`<div><dt>Re-run of</dt><dd><a class="mono" href=${`#/runs/${record.rerun_of}`}>${record.rerun_of}</a></dd></div>`
          : null
      }
    </dl>
    <div class="actions">
      <button type="button" onClick=${rerun} disabled=${record.status === "running" || rerunning}>Re-run</button>
      <button type="button" onClick=${async () => copy("bass run command", asBassRun(record, await projectDir()))}>Copy as bass run</button>
      <button type="button" onClick=${() => copy("curl command", asCurl(record, location.origin))}>Copy as curl</button>
      <button type="button" onClick=${() => download(`/_bass/runs/${id}/case`, `${record.integration}.${record.id}.test.yaml`, "test case")} disabled=${record.status === "running"}>Download as test case</button>
      <form class="compare" onSubmit=${(e: Event) => {
        e.preventDefault();
        if (/^\w{26}$/.test(compareWith)) location.hash = `#/diff/${compareWith}/${record.id}`;
      }}>
        <label>Compare with run <input class="mono" size="28" value=${other} placeholder=${record.rerun_of ?? "a run id"} onInput=${(e: InputEvent) => setOther((e.target as HTMLInputElement).value)} /></label>
        <button type="submit">Compare</button>
      </form>
    </div>
    ${
      masked.length
        ? html`<p class="warning" data-masked>Masked in this record: <span class="mono">${masked.join(", ")}</span>. The copies send these masked: put real values in before you run them. Re-run sends the request serve kept, if it kept one; else these go masked too.</p>`
        : null
    }
    ${rerunNotes.has(record.id) ? html`<p class="warning" role="status">${rerunNotes.get(record.id)}</p>` : null}
    ${note ? html`<div class="note" role="status"><p>${note.text}</p>${note.shown ? html`<pre>${note.shown}</pre>` : null}</div>` : null}
    ${
      record.files?.length
        ? html`<h2>Files</h2>
          <ul class="files">
            ${record.files.map(
              (file) => html`<li key=${file.name}>
                ${
                  file.kept === false
                    ? html`<span class="mono">${file.name} (not kept)</span>`
                    : html`<button type="button" class="link mono" onClick=${() => download(`/_bass/runs/${id}/files/${encodeURIComponent(file.name)}`, file.name, file.name)}>${file.name}</button>`
                }
                <span class="muted">${file.type}, ${formatBytes(file.size)}</span>
              </li>`,
            )}
          </ul>`
        : null
    }
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
    case "CALLINT":
      return `${item.integration} ${item.status}`;
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
          <span class="when">${item.kind === "REQUEST" || item.kind === "CALLINT" ? formatDuration(item.duration_ms) : ""}</span>
          <span class="track" aria-hidden="true"><span class="bar" style=${`left:${bar.left}%;width:${bar.width}%`}></span></span>
        </summary>
        ${
          item.kind === "REQUEST"
            ? html`<div class="pair">
                <section><h3>Request</h3><${JsonView} value=${item.request} label=${`item ${item.seq}, request`} /></section>
                <section><h3>Response</h3><${JsonView} value=${item.response} label=${`item ${item.seq}, response`} /></section>
              </div>`
            : html`<${JsonView} value=${detailOf(item)} label=${`item ${item.seq}, ${item.kind}`} />`
        }
      </details>
      ${why ? html`<p class="why">${why}</p>` : null}
      ${item.kind === "CALLINT" ? html`<p class="child">run <a class="mono" href=${`#/runs/${item.run_id}`}>${item.run_id}</a></p>` : null}
    </li>
  `;
}
