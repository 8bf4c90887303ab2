import { resolve } from "node:path";
import type { AdapterResolver } from "../adapters/adapter.js";
import { type Cassette, createRecorder } from "../adapters/cassette.js";
import { writeFileAtomic } from "../write-atomic.js";

export interface RunRecording {
  resolve: AdapterResolver;
  /** Writes the run's exchanges, masked with `mask` (a copy masked as the run's record is), to the cassette file. */
  save(mask: <T>(value: T) => T, integration: string): Promise<void>;
}

/** `--record FILE`: keeps every adapter exchange of the run, for a cassette that `--replay` answers from. */
export function createRunRecording(adapters: AdapterResolver, file: string, cwd: string): RunRecording {
  const recorder = createRecorder(adapters);
  return {
    resolve: recorder.resolve,
    async save(mask, integration) {
      const cassette: Cassette = {
        integration,
        recorded_at: new Date().toISOString(),
        exchanges: recorder.exchanges,
      };
      await writeFileAtomic(resolve(cwd, file), await format(file, mask(cassette)));
    },
  };
}

async function format(file: string, cassette: Cassette): Promise<string> {
  if (file.endsWith(".json")) return `${JSON.stringify(cassette, null, 2)}\n`;
  // Loaded on first use: a run that records nothing needs no YAML writer.
  const { stringify: stringifyYaml } = await import("../yaml-text.js");
  return `# Recorded by bass run --record, masked: replay it with bass run --replay ${file}\n${stringifyYaml(cassette)}`;
}
