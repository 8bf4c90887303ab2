import { describe, expect, it } from "vitest";
import { createFaultInjector } from "../../src/mockcore/faults.js";

const ok = { status: 201, body: { transferId: "TR00000017" } };

/** Draws the given numbers in turn and records how many were drawn. */
function draws(...numbers: number[]) {
  const drawn: number[] = [];
  return {
    drawn,
    random: () => {
      const next = numbers[drawn.length] ?? 0.99;
      drawn.push(next);
      return next;
    },
  };
}

describe("fault injection, in-process", () => {
  it.each<[string, Parameters<typeof createFaultInjector>[0], boolean, unknown]>([
    ["no faults", {}, true, { answer: ok }],
    ["an injected 500", { errorRate: 0.5 }, false, { answer: { status: 500 } }],
    ["a reset", { resetRate: 0.5 }, true, "reset"],
    ["half a body", { malformedRate: 0.5 }, true, { answer: { status: 200 }, text: '{"transferId":' }],
  ])("delivers %s", async (_name, faults, responds, delivery) => {
    let responded = false;
    const inject = createFaultInjector({ ...faults, random: () => 0.1 });
    const result = await inject(async () => {
      responded = true;
      return ok;
    });
    expect(responded).toBe(responds);
    expect(result).toMatchObject(delivery as object);
  });

  it("draws only for the rates that are set, in the order error, reset, malformed", async () => {
    const { drawn, random } = draws(0.9, 0.9, 0.1);
    const inject = createFaultInjector({ errorRate: 0.5, resetRate: 0.5, malformedRate: 0.5, random });
    expect(await inject(async () => ok)).toMatchObject({ text: expect.any(String) });
    expect(drawn).toHaveLength(3);
    const none = draws();
    await createFaultInjector({ resetRate: 0, random: none.random })(async () => ok);
    expect(none.drawn).toHaveLength(0);
  });

  it.each([{ errorRate: 2 }, { resetRate: -0.1 }, { malformedRate: Number.NaN }, { latencyMs: -1 }])(
    "refuses %o",
    (faults) => {
      expect(() => createFaultInjector(faults)).toThrow(/must be/);
    },
  );
});
