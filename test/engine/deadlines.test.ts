import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createHttpAdapter } from "../../src/adapters/http.js";
import { createDeadlines, timedOut } from "../../src/engine/deadlines.js";
import { runDefinition } from "../_helpers.js";
import { startTestServer } from "../adapters/_server.js";

const never = () => new Promise<never>(() => {});
const withinDeadline = createDeadlines().within;
const inMs = (ms: number) => performance.now() + ms;

describe("a list of deadlines", () => {
  it("gives the work's value, or its error, when it settles first", async () => {
    let timeouts = 0;
    const onTimeout = () => void timeouts++;
    await expect(withinDeadline(Promise.resolve(7), inMs(1000), onTimeout)).resolves.toBe(7);
    await expect(withinDeadline({ plain: true }, inMs(1000), onTimeout)).resolves.toEqual({ plain: true });
    await expect(withinDeadline(Promise.reject(new Error("no")), inMs(1000), onTimeout)).rejects.toThrow(
      "no",
    );
    expect(timeouts).toBe(0);
  });

  it("gives timedOut and calls onTimeout once the deadline passes first", async () => {
    let timeouts = 0;
    const started = performance.now();
    const outcome = await withinDeadline(never(), inMs(40), () => void timeouts++);
    expect(outcome).toBe(timedOut);
    expect(timeouts).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(39);
  });

  it("ends each wait at its own deadline, an earlier one that came later included", async () => {
    const ended: string[] = [];
    const wait = (name: string, ms: number) => withinDeadline(never(), inMs(ms), () => void ended.push(name));
    await Promise.all([wait("late", 120), wait("early", 30), wait("middle", 60)]);
    expect(ended).toEqual(["early", "middle", "late"]);
  });

  it("keeps every other wait when waits end in any order, settled or timed out", async () => {
    const ended: number[] = [];
    const settle: (() => void)[] = [];
    const waits = Array.from({ length: 40 }, (_, index) => {
      // Odd waits settle (in reverse order, so ends come from every place in the list); even ones time out.
      const work = new Promise<number>((resolve) => settle.push(() => resolve(index)));
      return withinDeadline(work, inMs(index % 2 ? 5_000 : 20 + index), () => void ended.push(index));
    });
    for (let index = settle.length - 1; index >= 0; index -= 2) settle[index]?.();
    const outcomes = await Promise.all(waits);
    expect(outcomes).toEqual(outcomes.map((_, index) => (index % 2 ? index : timedOut)));
    expect(ended).toEqual(outcomes.flatMap((_, index) => (index % 2 ? [] : [index])));
    // The list is whole afterwards: a new wait still times out, and one that settles is not expired later.
    let late = 0;
    await expect(withinDeadline(never(), inMs(10), () => void late++)).resolves.toBe(timedOut);
    await expect(withinDeadline(Promise.resolve("now"), inMs(10), () => void late++)).resolves.toBe("now");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(late).toBe(1);
  });

  it("times out a wait started while others expire, even with a later one still waiting", async () => {
    let inner: Promise<unknown> | undefined;
    const far = withinDeadline(never(), inMs(3_000), () => {});
    await withinDeadline(never(), inMs(20), () => {
      inner = withinDeadline(never(), inMs(20), () => {});
    });
    const first = await Promise.race([inner?.then(() => "inner"), far.then(() => "far")]);
    expect(first).toBe("inner");
  });

  it("keeps the process alive while a wait is in progress, and not after", () => {
    const module = join(import.meta.dirname, "../../dist/engine/deadlines.js");
    const script = (body: string) =>
      spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `import { createDeadlines, timedOut } from ${JSON.stringify(module)};\nconst withinDeadline = createDeadlines().within;\n${body}`,
        ],
        {
          encoding: "utf8",
          timeout: 20_000,
        },
      );
    const waiting = script(
      "withinDeadline(new Promise(() => {}), performance.now() + 200, () => {}).then((v) => console.log(v === timedOut));",
    );
    expect(waiting.stdout.trim()).toBe("true");
    const started = Date.now();
    const done = script(
      'await withinDeadline(Promise.resolve(1), performance.now() + 60_000, () => {}); console.log("done");',
    );
    expect(done.stdout.trim()).toBe("done");
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe("a run that times out waiting on an adapter", () => {
  it("aborts the signal the adapter was given and fails with 504", async () => {
    const signals: AbortSignal[] = [];
    const result = await runDefinition(
      "name: slow\nservice_requests:\n  - formula_variable: core\n    system: transform\n",
      { payload: {} },
      {
        runTimeoutMs: 50,
        adapters: () => ({
          execute: (_request, context) => {
            signals.push(context.signal);
            return never();
          },
        }),
      },
    );
    expect(result.output.status).toBe(504);
    expect(signals.map((signal) => signal.aborted)).toEqual([true]);
  });

  it("tells the adapter which call it is, and nothing of the run but its time limit", async () => {
    const seen: unknown[] = [];
    await runDefinition(
      "name: told\nservice_requests:\n  - formula_variable: core\n    system: transform\n",
      { payload: {} },
      {
        runTimeoutMs: 50,
        adapters: () => ({
          execute: async (_request, context) => {
            const left = (context.deadline ?? 0) - performance.now();
            seen.push(
              { ...context },
              context.signal.aborted,
              Object.keys(context).sort(),
              left > 0 && left <= 50,
            );
            return { success: true, payload: null, messages: [] };
          },
        }),
      },
    );
    expect(seen).toEqual([
      {
        system: "transform",
        formulaVariable: "core",
        sridx: null,
        deadline: expect.any(Number),
        signal: expect.any(AbortSignal),
      },
      false,
      ["deadline", "formulaVariable", "signal", "sridx", "system"],
      true,
    ]);
  });

  it("reports the run's time-out when the http adapter stops at the deadline itself", async () => {
    const server = await startTestServer(() => {});
    const core = createHttpAdapter({ name: "core", config: { adapter: "http", base_url: server.url } });
    onTestFinished(() => core.close());
    const definition =
      "name: slow\ntimeout_ms: 40\nservice_requests:\n  - formula_variable: core\n    system: core\n" +
      "    field_mappings:\n      - { field: service_path, literal: /t }\n      - { field: method, literal: GET }\n";
    for (let run = 0; run < 5; run++) {
      const result = await runDefinition(definition, { payload: {} }, { adapters: () => core });
      expect(result.output.status).toBe(504);
      const request = result.record.items.find((item) => item.kind === "REQUEST");
      const unknown =
        "the outcome of core at core is unknown: the run ran out of time while the call was under way";
      expect(request?.kind === "REQUEST" && request.response?.messages).toEqual([unknown]);
      // The caller is told too: the system may still act on the call.
      expect(result.output.payload).toMatchObject({ error: { code: "timeout", details: [unknown] } });
    }
  });

  it("lets an adapter read the signal through a Proxy of its context or an object made from it", async () => {
    const seen: boolean[] = [];
    await runDefinition(
      "name: wrapped\nservice_requests:\n  - formula_variable: core\n    system: transform\n",
      { payload: {} },
      {
        adapters: () => ({
          execute: async (_request, context) => {
            seen.push(new Proxy(context, {}).signal.aborted, Object.create(context).signal.aborted);
            return { success: true, payload: null, messages: [] };
          },
        }),
      },
    );
    expect(seen).toEqual([false, false]);
  });

  it("takes a module adapter's answer given without a promise", async () => {
    const result = await runDefinition(
      "name: plain\nservice_requests:\n  - formula_variable: core\n    system: transform\non_success_hook: output.payload = core.response.payload\n",
      { payload: {} },
      {
        adapters: () => ({
          execute: (() => ({ success: true, payload: { plain: 1 }, messages: [] })) as never,
        }),
      },
    );
    expect(result.status).toBe("success");
    expect(result.output.payload).toEqual({ plain: 1 });
  });
});
