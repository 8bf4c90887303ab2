import type { AdapterResolver } from "../adapters/adapter.js";
import { type Cassette, checkCassette, createReplayAdapter } from "../adapters/cassette.js";
import { checkMockAnswers, createMockAdapter, type MockAnswers } from "../adapters/mock.js";
import { BassError } from "../errors.js";
import type { ProjectCache } from "./cache.js";
import { readDataFile } from "./data-file.js";
import type { Project } from "./open.js";
import type { LiveSystems } from "./systems.js";
import { formatIssueList, unsetForSystems } from "./usable.js";

/** Where a run's adapters answer from: fixed answers, a recorded cassette, or the project's systems. */
export type AdapterChoice =
  | { kind: "mock"; answers: MockAnswers; source: string }
  | { kind: "cassette"; cassette: Cassette; source: string }
  | { kind: "live" };

export interface ProjectAdapters {
  /** The adapters of one run; the project's systems start at the first live run and serve every later one. */
  resolverFor(choice: AdapterChoice): Promise<AdapterResolver>;
  /** The embedded mock core's address, once the live systems started and a system uses it. */
  mockcoreUrl(): Promise<string | undefined>;
  /** The same, now: undefined until the live systems started (it moves when this process takes the core over). */
  currentMockcoreUrl(): string | undefined;
  close(): Promise<void>;
}

export interface ProjectAdaptersOptions {
  /** This process runs until stopped (serve), so other processes may use its embedded mock core. */
  lasting?: boolean;
  /** The embedded mock core another thread of this process runs (a worker's systems use serve's). */
  mockcoreUrl?: string | undefined;
}

/** The one adapter selection of every command: mock answers, a cassette, or the live systems. */
export function createProjectAdapters(
  project: Project,
  options: ProjectAdaptersOptions = {},
): ProjectAdapters {
  let systems: Promise<LiveSystems> | undefined;
  let started: LiveSystems | undefined;
  return {
    async resolverFor(choice) {
      if (choice.kind === "live") {
        systems ??= startLive(project, options).then((live) => (started = live));
        return (await systems).resolve;
      }
      const adapter =
        choice.kind === "mock"
          ? createMockAdapter(choice.answers, choice.source)
          : createReplayAdapter(choice.cassette, choice.source);
      return () => adapter;
    },
    async mockcoreUrl() {
      return (await systems?.catch(() => undefined))?.mockcoreUrl;
    },
    currentMockcoreUrl: () => started?.mockcoreUrl,
    async close() {
      // Systems that failed to start have nothing to close; their error went to the run that started them.
      const started = await systems?.catch(() => undefined);
      await started?.close();
    },
  };
}

async function startLive(project: Project, options: ProjectAdaptersOptions): Promise<LiveSystems> {
  // A system's unset variable blocks only this: the runs that call the live systems.
  const unset = unsetForSystems(project.issues);
  if (unset.length)
    throw new BassError(
      "DEFINITION_INVALID",
      `the project's systems cannot start until these are set (bass validate shows them all):\n${formatIssueList(unset)}`,
    );
  // Loaded only for live runs: the http adapter and the mock core are most of a mocked run's start-up.
  const { startSystems } = await import("./systems.js");
  return startSystems(project.config, project.dir, {
    lasting: options.lasting ?? false,
    secrets: project.secrets,
    mockcoreUrl: options.mockcoreUrl,
  });
}

/** A `--mock` file (YAML or JSON): answers by formula variable. */
export async function readMockFile(
  path: string,
  label: string,
  cache?: ProjectCache,
  text?: string,
): Promise<MockAnswers> {
  return (await readDataFile(path, `the mock file ${label}`, {
    check: checkMockAnswers,
    cache,
    text,
  })) as MockAnswers;
}

/** A cassette that `bass run --record` wrote (YAML or JSON). */
export async function readCassette(path: string, label: string, cache?: ProjectCache): Promise<Cassette> {
  return (await readDataFile(path, `the cassette ${label}`, { check: checkCassette, cache })) as Cassette;
}
