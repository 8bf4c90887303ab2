import { describe, expect, it } from "vitest";
import type { Adapter } from "../../src/adapters/adapter.js";
import { withWaitingLine } from "../../src/cli/waiting.js";

const answerAfter = (ms: number): Adapter => ({
  execute: () =>
    new Promise((resolve) => setTimeout(() => resolve({ success: true, payload: null, messages: [] }), ms)),
});
const context = {
  system: "core",
  formulaVariable: "person",
  sridx: null,
  signal: new AbortController().signal,
};
const request = { service_name: "get", payload: null };

describe("the waiting line", () => {
  it("says what a call past half a second waits on, and clears it when the call ends", async () => {
    const shown: string[] = [];
    const resolve = withWaitingLine(
      () => answerAfter(700),
      (text) => shown.push(text),
    );
    expect((await resolve("core").execute(request, context)).success).toBe(true);
    expect(shown).toEqual(["\rwaiting on core (person) …", "\r\u001b[K"]);
  });

  it("says nothing of a quick call, and nothing off a terminal", async () => {
    const shown: string[] = [];
    await withWaitingLine(
      () => answerAfter(5),
      (text) => shown.push(text),
    )("core").execute(request, context);
    expect(shown).toEqual([]);
    const plain = () => answerAfter(5);
    expect(withWaitingLine(plain, undefined)).toBe(plain);
  });
});
