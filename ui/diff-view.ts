/** The difference of two runs. */
import { html } from "htm/preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { getJson, type RunRecord } from "./api.js";
import { diffRuns } from "./format.js";

/** Two runs side by side: every path where they differ, times and ids aside. */
export function DiffView({ a, b, fail }: { a: string; b: string; fail: (error: unknown) => void }) {
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
