import { afterEach, describe, expect, it, vi } from "vitest";
import { type RunState, runTimestamp, systemClock } from "../../src/engine/run-state.js";
import { runDefinition } from "../_helpers.js";

const withClock = (clock: () => Date) => ({ clock }) as RunState;

describe("runTimestamp", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gives the system clock's millisecond as ISO text, a new text once the millisecond changes", () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 2, 3, 4, 5, 6) });
    const state = withClock(systemClock);
    expect(runTimestamp(state)).toBe("2026-01-02T03:04:05.006Z");
    expect(runTimestamp(state)).toBe("2026-01-02T03:04:05.006Z");
    vi.advanceTimersByTime(1);
    expect(runTimestamp(state)).toBe("2026-01-02T03:04:05.007Z");
    vi.setSystemTime(Date.UTC(2025, 11, 31, 23, 59, 59, 999));
    expect(runTimestamp(state)).toBe("2025-12-31T23:59:59.999Z");
  });

  it("asks a run's own clock every time", () => {
    const times = [Date.UTC(2020, 1, 3), Date.UTC(2021, 4, 5)];
    const state = withClock(() => new Date(times.shift() ?? 0));
    expect([runTimestamp(state), runTimestamp(state)]).toEqual([
      "2020-02-03T00:00:00.000Z",
      "2021-05-05T00:00:00.000Z",
    ]);
  });
});

describe("a run's namespace", () => {
  it.each(["input", "output", "end", "console", "sridx", "vrmsg", "tr"])(
    "refuses to let keep replace %s",
    async (name) => {
      const result = await runDefinition(
        `name: reserved
service_requests:
  - formula_variable: tr
    system: transform
before_hook: ${JSON.stringify(`keep({ ${name}: 1 })`)}
`,
        { payload: {} },
      );
      expect(result.status).toBe("failure");
      expect(result.record.items).toContainEqual(
        expect.objectContaining({
          kind: "FAILURE",
          error: expect.objectContaining({
            message: expect.stringContaining(`keep cannot replace "${name}"`),
          }),
        }),
      );
    },
  );

  it("lets keep add a name of its own", async () => {
    const result = await runDefinition(
      "name: kept\nbefore_hook: 'keep({ extra: 2 })'\non_success_hook: output.payload = extra\n",
      { payload: {} },
    );
    expect(result.output.payload).toBe(2);
  });
});

describe("a run's namespace inherits no name", () => {
  it.each(["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"])(
    "%s is not defined in a cell",
    async (name) => {
      const result = await runDefinition(
        `name: inherits\non_success_hook: ${JSON.stringify(`output.payload = [typeof ${name}, String(${name})]`)}\n`,
        { payload: {} },
      );
      expect(result.status).toBe("failure");
      expect(result.record.items).toContainEqual(
        expect.objectContaining({
          kind: "FAILURE",
          error: expect.objectContaining({ message: expect.stringContaining(`${name} is not defined`) }),
        }),
      );
    },
  );
});
