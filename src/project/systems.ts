import { resolve } from "node:path";
import type { AdapterResolver } from "../adapters/adapter.js";
import { createAdapterResolver } from "../adapters/resolve.js";
import type { ProjectConfig, SystemConfig } from "../definition/types.js";
import { scrubError } from "../engine/scrub-error.js";
import { startMockcore } from "../mockcore/server.js";
import { type FollowedMockcore, followSharedMockcore } from "../mockcore/shared-core.js";

export interface LiveSystems {
  resolve: AdapterResolver;
  /** The embedded mock core's address now, when a system uses it: it moves when this process takes it over. */
  readonly mockcoreUrl: string | undefined;
  close(): Promise<void>;
}

export interface StartSystemsOptions {
  lasting?: boolean;
  secrets?: readonly string[];
  /** The embedded mock core another thread of this process runs: its systems talk to it. */
  mockcoreUrl?: string | undefined;
}

/**
 * The adapters of a project's systems, live. Systems on `base_url: mockcore:` talk to a mock core started in
 * this process on a loopback port (docs/mockcore.md#the-mock-cores-api), its state in the project's `mockcore.data` file when it has one;
 * when another process already runs the core on that file, they talk to that one or wait for it, and
 * take it over when that process ends (mockcore/shared-core.ts). `lasting`: this process runs until stopped (serve), so others may use its core.
 * An error starting or closing them has each of `secrets` masked: an adapter module's own error, or a
 * module or data file path taken from the environment, may quote one.
 */
export async function startSystems(
  config: ProjectConfig,
  projectDir: string,
  options: StartSystemsOptions = {},
): Promise<LiveSystems> {
  const secretly = <T>(work: () => Promise<T>) =>
    work().catch((error: unknown) => {
      throw scrubError(error, options.secrets ?? []);
    });
  const systems = config.systems ?? {};
  const dataFile = config.mockcore?.data ? resolve(projectDir, config.mockcore.data) : undefined;
  const usesCore = Object.values(systems).some((system) => system.base_url === "mockcore:");
  const embedded = !usesCore
    ? undefined
    : options.mockcoreUrl !== undefined
      ? { url: options.mockcoreUrl, onMove: () => {}, close: async () => {} }
      : await secretly<Pick<FollowedMockcore, "url" | "onMove" | "close">>(() =>
          dataFile
            ? followSharedMockcore({ dataFile, lasting: options.lasting ?? false })
            : startMockcore().then((core) => ({ ...core, onMove: () => {} })),
        );
  const adaptersAt = (url: string | undefined) =>
    secretly(() => createAdapterResolver(systems, { projectDir, baseUrls: mockcoreBaseUrls(systems, url) }));
  try {
    let adapters = await adaptersAt(embedded?.url);
    // Another process's core whose process ended: this one took it over, and its systems talk to it there.
    embedded?.onMove(async (url) => {
      const previous = adapters;
      adapters = await adaptersAt(url);
      await previous.close().catch(() => {});
    });
    return {
      resolve: (system) => adapters.resolve(system),
      get mockcoreUrl() {
        return embedded?.url;
      },
      close: () =>
        secretly(async () => {
          await adapters.close();
          await embedded?.close();
        }),
    };
  } catch (error) {
    await embedded?.close();
    throw error;
  }
}

/** The address of every system on `base_url: mockcore:`: the embedded core's. */
function mockcoreBaseUrls(
  systems: Readonly<Record<string, SystemConfig>>,
  url: string | undefined,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(systems).flatMap(([name, system]) =>
      system.base_url === "mockcore:" && url !== undefined ? [[name, url]] : [],
    ),
  );
}
