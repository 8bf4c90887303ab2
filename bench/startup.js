import { fileURLToPath } from "node:url";
import { timeCommands } from "./lib.js";

const bass = fileURLToPath(new URL("../bin/bass.js", import.meta.url));

/** Start-up: `bass --help` against a bare `node -e 0`, taking turns, so the ratio is what bass adds to node. */
export async function measureStartup({ runs = 20 } = {}) {
  const [help, bare] = timeCommands(
    [
      [process.execPath, bass, "--help"],
      [process.execPath, "-e", "0"],
    ],
    { runs },
  );
  return [
    {
      name: "start-up, bass --help",
      value: help.median,
      baseline: { ms: bare.median, label: "node -e 0" },
      goal: { text: "under 2×", max: 2, of: "ratio" },
      note: `bass --help takes ${(help.median / bare.median).toFixed(2)}× a bare node start (medians of ${runs} runs each, alternating)`,
    },
  ];
}
