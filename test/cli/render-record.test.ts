import { stripVTControlCharacters } from "node:util";
import { Chalk } from "chalk";
import { describe, expect, it } from "vitest";
import { renderRecord, renderRunList } from "../../src/cli/render-record.js";
import type { RunRecord } from "../../src/engine/types.js";

const at = "2026-01-02T03:04:05.000Z";
const plain = new Chalk({ level: 0 });
const colour = new Chalk({ level: 1 });

const record: RunRecord = {
  id: "01KAJ4Q2T0XG5Z8B3N6C9D1E7F",
  integration: "customers.create",
  status: "failure",
  trigger: "cli",
  started_at: at,
  ended_at: at,
  duration_ms: 1234,
  labels: ["vip", "eu"],
  async: false,
  items: [
    {
      seq: 1,
      kind: "INPUT",
      at,
      data: {
        method: "POST",
        fullpath: "/customers",
        path: {},
        params: {},
        headers: {},
        payload: {
          name: "Ann Lee",
          email: "ann@example.com",
          note: "a note long enough to be cut short\nhere",
        },
      },
    },
    {
      seq: 2,
      kind: "REQUEST",
      at,
      label: "core",
      sridx: null,
      duration_ms: 4,
      request: { service_name: "n/a", payload: { name: "Ann Lee" } },
      response: { success: true, status: 201, payload: { personId: "P1" }, messages: [] },
    },
    {
      seq: 3,
      kind: "REQUEST",
      at,
      label: "accounts",
      sridx: 2,
      duration_ms: 9,
      request: { service_name: "n/a", payload: { iban: "****" } },
      response: { success: false, status: 502, payload: "bad gateway", messages: [] },
    },
    {
      seq: 4,
      kind: "VALIDATION_FAILURE",
      at,
      label: "input.payload.email",
      message: "must be an e-mail",
      vridx: 0,
    },
    { seq: 5, kind: "DEBUG", at, label: "seen", data: { kept: true } },
    { seq: 6, kind: "LOG", at, level: "warn", data: "slow \u001b[31mcore" },
    {
      seq: 7,
      kind: "FAILURE",
      at,
      error: { code: "CELL_ERROR", message: "x is not defined", cell: "before_hook", line: 12 },
    },
    { seq: 8, kind: "DEBUG", at, data: [1, 2] },
    { seq: 9, kind: "FAILURE", at, error: { code: "ADAPTER", message: "no answer" } },
    {
      seq: 10,
      kind: "OUTPUT",
      at,
      data: { status: 502, headers: {}, payload: { error: { code: "ADAPTER" } } },
    },
  ],
};

describe("renderRecord", () => {
  it("draws a run as a header and one tree line per item", () => {
    expect(renderRecord(record, plain)).toMatchInlineSnapshot(`
      "01KAJ4Q2T0XG5Z8B3N6C9D1E7F customers.create failure 1.2 s cli [vip, eu]
      ├─  1 INPUT              POST /customers {"name":"Ann Lee","email":"ann@example.com","note":"a note long enough to be cu…
      ├─  2 REQUEST            core ✓ 201 4 ms → {"name":"Ann Lee"} ← {"personId":"P1"}
      ├─  3 REQUEST            accounts[2] ✗ 502 9 ms → {"iban":"****"} ← bad gateway
      ├─  4 VALIDATION_FAILURE input.payload.email
      │     must be an e-mail
      ├─  5 DEBUG              seen {"kept":true}
      ├─  6 LOG                warn: slow  [31mcore
      ├─  7 FAILURE            CELL_ERROR before_hook, line 12
      │     x is not defined
      ├─  8 DEBUG              [1,2]
      ├─  9 FAILURE            ADAPTER
      │     no answer
      └─ 10 OUTPUT             502 {"error":{"code":"ADAPTER"}}
      "
    `);
  });

  it("colours the status, the response states and failures when colour is on", () => {
    const text = renderRecord(record, colour);
    expect(text).toContain(colour.red("failure"));
    expect(text).toContain(colour.green("✓ 201"));
    expect(text).toContain(colour.red("✗ 502"));
    expect(text).toContain(colour.red("VALIDATION_FAILURE"));
    expect(renderRecord({ ...record, status: "running", duration_ms: null }, colour)).toContain(
      colour.yellow("running"),
    );
  });
});

describe("renderRunList", () => {
  it("aligns one row per run under a heading", () => {
    const running = {
      ...record,
      id: "01KAJ4Q2T0XG5Z8B3N6C9D1E7G",
      status: "running" as const,
      duration_ms: null,
    };
    expect(renderRunList([running, { ...record, labels: [] }], plain)).toMatchInlineSnapshot(`
      "ID                          INTEGRATION       STATUS   STARTED                   DURATION  TRIGGER  LABELS
      01KAJ4Q2T0XG5Z8B3N6C9D1E7G  customers.create  running  2026-01-02T03:04:05.000Z  -         cli      vip, eu
      01KAJ4Q2T0XG5Z8B3N6C9D1E7F  customers.create  failure  2026-01-02T03:04:05.000Z  1.2 s     cli"
    `);
  });

  it("says so when there are no runs", () => {
    expect(renderRunList([], plain)).toBe("(no runs)");
  });

  it("colours the status column", () => {
    expect(renderRunList([record], colour)).toContain(colour.red("failure"));
  });
});

describe("renderRecord's failures", () => {
  it("keeps a long message whole, wrapped to the width under its item, with the file and line", () => {
    const message = "the customer record has no email address and the core refuses to create it without one";
    const long: RunRecord = {
      ...record,
      items: [
        {
          seq: 1,
          at: "2025-01-01T00:00:00.000Z",
          kind: "FAILURE",
          error: { code: "cell_error", message, cell: "before_hook", file: "integrations/a.yaml", line: 7 },
        },
      ],
    };
    const lines = renderRecord(long, plain, 60).trimEnd().split("\n");
    expect(lines[1]).toBe("└─ 1 FAILURE cell_error before_hook, integrations/a.yaml:7");
    const wrapped = lines.slice(2);
    expect(wrapped.length).toBeGreaterThan(1);
    for (const line of wrapped) expect(line.length).toBeLessThanOrEqual(60);
    expect(wrapped.map((line) => line.trim()).join(" ")).toBe(message);
  });

  it("keeps a failed call's messages whole under its item, not cut on its line", () => {
    const messages = ["400 Bad Request", "birthDate must be a past date (YYYY-MM-DD), as the core requires"];
    const refused: RunRecord = {
      ...record,
      items: [
        {
          seq: 1,
          kind: "REQUEST",
          at,
          label: "core",
          sridx: null,
          duration_ms: 3,
          request: { service_name: "n/a", payload: { birthDate: "2999-01-01" } },
          response: { success: false, status: 400, payload: { errorCode: "INVALID_REQUEST" }, messages },
        },
      ],
    };
    const lines = renderRecord(refused, plain, 60).trimEnd().split("\n");
    expect(lines[1]).toMatch(/^└─ 1 REQUEST core ✗ 400 3 ms → /);
    expect(lines[1]).not.toContain("Bad Request");
    expect(
      lines
        .slice(2)
        .map((line) => line.trim())
        .join(" "),
    ).toBe(messages.join("; "));
  });
});

describe("renderRecord on a terminal", () => {
  it("cuts every line to the terminal's width, colours and all, and marks where it cut", () => {
    const text = renderRecord(record, colour, 50);
    const lines = text.trimEnd().split("\n");
    const visible = (line: string) => [...stripVTControlCharacters(line)].length;
    for (const line of lines) expect(visible(line)).toBeLessThanOrEqual(50);
    expect(lines.some((line) => stripVTControlCharacters(line).endsWith("…"))).toBe(true);
    // Off a terminal, lines are whole.
    const whole = renderRecord(record, plain).split("\n");
    expect(Math.max(...whole.map((line) => [...line].length))).toBeGreaterThan(50);
  });
});
