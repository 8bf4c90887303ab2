import { describe, expect, it } from "vitest";
import { echoAdapter } from "../../src/adapters/echo.js";
import type { RunFileKeeper } from "../../src/engine/run-files.js";
import type { VaultStore } from "../../src/engine/vault.js";
import { tellingWhenActing, type WaysOut } from "../../src/runner/ways-out.js";

function ways(): WaysOut {
  const vaults = {
    open: async () => ({}),
    openNow: () => ({}),
    ready: async () => {},
    peek: async () => ({ items: {}, secretKeys: [] }),
  } as unknown as VaultStore;
  const files: RunFileKeeper = { keep: async () => {} };
  return { adapters: () => echoAdapter, vaults, files, remote: undefined };
}

describe("a run's ways out of its thread", () => {
  it.each([
    ["a system", (out: WaysOut) => out.adapters("core")],
    ["a vault", (out: WaysOut) => out.vaults?.open("v", 0, {} as never)],
    ["a vault, blocked", (out: WaysOut) => out.vaults?.openNow("v", 0, {} as never)],
    ["kept files", (out: WaysOut) => out.files?.keep("run", [])],
  ])("tell once, before the run first takes %s", (_name, take) => {
    let told = 0;
    const out = tellingWhenActing(ways(), () => told++);
    void out.vaults?.ready();
    void out.vaults?.peek("v");
    expect(told).toBe(0);
    take(out);
    take(out);
    out.adapters("core");
    expect(told).toBe(1);
  });
});
