import { describe, expect, it } from "vitest";
import { envelopeInput } from "../../src/project/envelope.js";
import { runDefinition } from "../_helpers.js";

describe("an input envelope", () => {
  it("takes fullpath, as the platform's run histories hold it, and a run reads it", async () => {
    const input = envelopeInput(
      { payload: { a: 1 }, method: "POST", fullpath: "/integrations/execute/a?x=1" },
      "input.json",
    );
    expect(input).toEqual({
      payload: { a: 1 },
      method: "POST",
      fullpath: "/integrations/execute/a?x=1",
      path: undefined,
      params: undefined,
      headers: undefined,
    });
    const result = await runDefinition("name: a\non_success_hook: output.payload = input.fullpath\n", input);
    expect(result.output.payload).toBe("/integrations/execute/a?x=1");
  });

  it("refuses a fullpath that is not text, naming the file", () => {
    expect(() => envelopeInput({ payload: {}, fullpath: 3 }, "input.json")).toThrow(
      /^input\.json: envelope fullpath must be a string/,
    );
  });
});
