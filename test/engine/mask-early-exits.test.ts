import { describe, expect, it } from "vitest";
import { runDefinition } from "../_helpers.js";

const card = "4111111111111111";
const masks = "masks:\n  - type: INPUT\n    field: card\n";

describe("a run that ends before step 3 still masks (SPEC §4.4, §4.8, §12)", () => {
  it.each([
    ["an error in before_hook", 'before_hook: throw new Error("bad card " + input.payload.card)\n'],
    [
      "end() in before_hook",
      "before_hook: |\n  end({ status: 400, payload: { card: input.payload.card } })\n",
    ],
  ])("never records the masked value after %s", async (_name, hook) => {
    const result = await runDefinition(`name: masked\n${masks}${hook}`, { payload: { card } });
    expect(result.record.items[0]).toMatchObject({
      kind: "INPUT",
      data: { payload: { card: "XXXXXXXXXXXX" } },
    });
    expect(JSON.stringify(result.record)).not.toContain(card);
  });
});

describe("the default failure output is masked (SPEC §12, §4.8)", () => {
  it("does not echo a masked value in the error details", async () => {
    const result = await runDefinition(
      `name: masked\n${masks}on_success_hook: throw new Error("bad card " + input.payload.card)\n`,
      { payload: { card } },
    );
    expect(result.output.status).toBe(500);
    expect(JSON.stringify(result.output.payload)).not.toContain(card);
  });
});
