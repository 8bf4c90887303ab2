/** The difference of two runs. */
import { html } from "htm/preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { getJson, type RunRecord } from "./api.js";
import { diffRuns, groupChanges } from "./format.js";

/** Two runs side by side: every path where they differ, times and ids aside. */
export function DiffView({ a, b, fail }: { a: string; b: string; fail: (error: unknown) => void }) {
  const [records, setRecords] = useState<[RunRecord, RunRecord] | undefined>(undefined);
  useEffect(() => {
    Promise.all([getJson<RunRecord>(`/_bass/runs/${a}`), getJson<RunRecord>(`/_bass/runs/${b}`)]).then(
      (pair) => setRecords(pair as [RunRecord, RunRecord]),
      fail,
    );
  }, [a, b, fail]);
  const groups = useMemo(
    () => (records ? groupChanges(diffRuns(records[0], records[1]), records[0], records[1]) : []),
    [records],
  );
  if (!records) return html`<p class="muted" aria-live="polite">Loading…</p>`;
  const [left, right] = records;
  const named = (record: RunRecord, letter: string) =>
    html`<a class="mono" href=${`#/runs/${record.id}`}>${letter} · ${record.id}</a>
      <span class="muted">${record.integration}, ${record.status}, ${new Date(record.started_at).toLocaleString()}</span>`;
  return html`
    <nav aria-label="breadcrumb"><a href="#/">← all runs</a></nav>
    <h1>Difference of two runs</h1>
    <dl class="facts runs-compared">
      <div><dt>A</dt><dd>${named(left, "A")}</dd></div>
      <div><dt>B</dt><dd>${named(right, "B")}</dd></div>
    </dl>
    ${
      groups.length === 0
        ? html`<p>The two runs did the same, times and ids aside.</p>`
        : html`
          <div class="table-scroll" tabindex="0" role="region" aria-label="Differences">
          <table class="diff">
            <caption class="visually-hidden">What differs between run A and run B, by item</caption>
            <thead>
              <tr>
                <th scope="col">Where</th>
                <th scope="col">A · <span class="mono">${a}</span></th>
                <th scope="col">B · <span class="mono">${b}</span></th>
              </tr>
            </thead>
            ${groups.map(
              (group) => html`
                <tbody key=${group.title}>
                  <tr class="group"><th scope="rowgroup" colspan="3">${group.title}</th></tr>
                  ${group.changes.map(
                    (change) => html`
                      <tr key=${change.path}>
                        <th scope="row" class="mono">${change.path}</th>
                        <td class="removed">${change.a ?? "—"}</td>
                        <td class="added">${change.b ?? "—"}</td>
                      </tr>
                    `,
                  )}
                </tbody>
              `,
            )}
          </table>
          </div>
        `
    }
  `;
}
