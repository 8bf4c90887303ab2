import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import type { AdapterResolver } from "../adapters/adapter.js";
import { type Cassette, checkCassette, createRecorder, createReplayAdapter } from "../adapters/cassette.js";
import { checkMockAnswers, createMockAdapter, type MockAnswers } from "../adapters/mock.js";
import type { ProjectConfig } from "../definition/types.js";
import type { RunResult } from "../engine/run.js";
import { BassError } from "../errors.js";
import { writeFileAtomic } from "../write-atomic.js";

export interface RunAdaptersOptions {
  mock?: string | undefined;
  replay?: string | undefined;
  record?: string | undefined;
  cwd: string;
  projectDir: string;
  config: ProjectConfig;
  /** Masked in an error starting or closing the live systems. */
  secrets: readonly string[];
}

export interface RunAdapters {
  resolve: AdapterResolver;
  /** With `--record`: writes the run's exchanges, masked, to the cassette file. */
  save(result: RunResult, integration: string): Promise<void>;
  close(): Promise<void>;
}

/** The adapters of one `bass run`: `--mock` answers, a `--replay` cassette, or the systems themselves. */
export async function createRunAdapters(options: RunAdaptersOptions): Promise<RunAdapters> {
  if (options.mock && options.replay)
    throw new BassError("USAGE", "--mock and --replay cannot be used together");
  let base: { resolve: AdapterResolver; close(): Promise<void> };
  if (options.mock) {
    const answers = readData(options.mock, "mock file", options.cwd, checkMockAnswers) as MockAnswers;
    base = fixed(createMockAdapter(answers, options.mock));
  } else if (options.replay) {
    const cassette = readData(options.replay, "cassette", options.cwd, checkCassette) as Cassette;
    base = fixed(createReplayAdapter(cassette, options.replay));
  } else {
    // Loaded only for a live run: undici and the mock core are most of a --mock run's start-up otherwise.
    const { startSystems } = await import("../adapters/systems.js");
    base = await startSystems(options.config, options.projectDir, { secrets: options.secrets });
  }

  const recorder = options.record ? createRecorder(base.resolve) : undefined;
  return {
    resolve: recorder?.resolve ?? base.resolve,
    async save(result, integration) {
      if (!recorder || !options.record) return;
      const cassette: Cassette = {
        integration,
        recorded_at: new Date().toISOString(),
        exchanges: recorder.exchanges,
      };
      await writeFileAtomic(
        resolve(options.cwd, options.record),
        format(options.record, result.mask(cassette)),
      );
    },
    close: base.close,
  };
}

function fixed(adapter: ReturnType<typeof createMockAdapter>): {
  resolve: AdapterResolver;
  close(): Promise<void>;
} {
  return { resolve: () => adapter, close: async () => {} };
}

/** A YAML (or JSON) file bass reads for a run, checked for its shape. */
function readData(
  file: string,
  what: string,
  cwd: string,
  check: (value: unknown) => string | undefined,
): unknown {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), "utf8");
  } catch (error) {
    throw new BassError("FILE_NOT_FOUND", `cannot read the ${what} ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    // The first line only: the parser's code frame would print the file's own text, secrets included.
    throw new BassError("INPUT_INVALID", `${file}: ${(error as Error).message.split("\n")[0]}`);
  }
  const problem = check(value);
  if (problem) throw new BassError("INPUT_INVALID", `${file}: ${problem}`);
  return value;
}

function format(file: string, cassette: Cassette): string {
  if (file.endsWith(".json")) return `${JSON.stringify(cassette, null, 2)}\n`;
  return `# Recorded by bass run --record, masked: replay it with bass run --replay ${file}\n${stringifyYaml(cassette)}`;
}
