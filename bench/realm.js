import { pairRatios, timeCommands } from "./lib.js";

const namespaceModule = new URL("../dist/engine/namespace.js", import.meta.url).href;

/**
 * The cells' realm: what making it costs a process that runs a cell (a vm context, and freezing the
 * objects and constructors among its intrinsics). A fresh process that loads the engine's namespace module
 * and makes a realm, against one that only loads the module, CPU time of the whole process, taking turns.
 */
export async function measureRealm({ runs = 20 } = {}) {
  const script = (make) =>
    `const m = await import(${JSON.stringify(namespaceModule)}); ${make ? "m.createRunRealm();" : ""}`;
  const command = (make) => [process.execPath, "--input-type=module", "-e", script(make)];
  const [withRealm, without] = timeCommands([command(true), command(false)], { runs });
  const ratio = pairRatios(withRealm, without);
  return [
    {
      name: "cells' realm, made once",
      value: withRealm.median - without.median,
      baseline: { ms: without.median, label: "loading the engine alone" },
      ratio,
      note: `making the cells' realm adds ${(withRealm.median - without.median).toFixed(1)} ms of CPU to a process that loads the engine (${ratio.median.toFixed(2)}× its CPU, spread ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}×, ${runs} pairs); every process that runs a cell pays it once`,
    },
  ];
}
