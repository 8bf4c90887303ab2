import { resolve } from "node:path";
import type { ProjectConfig } from "../definition/types.js";
import { startMockcore } from "../mockcore/server.js";
import { startSharedMockcore } from "../mockcore/shared.js";
import type { AdapterResolver } from "./adapter.js";
import { createAdapterResolver } from "./resolve.js";

export interface LiveSystems {
  resolve: AdapterResolver;
  close(): Promise<void>;
}

/**
 * The adapters of a project's systems, live. Systems on `base_url: mockcore:` talk to a mock core started in
 * this process on a loopback port (SPEC §9), its state in the project's `mockcore.data` file when it has one;
 * when another process already runs the core on that file, they talk to that one or wait for it
 * (mockcore/shared.ts). `lasting`: this process runs until stopped (serve), so others may use its core.
 */
export async function startSystems(
  config: ProjectConfig,
  projectDir: string,
  options: { lasting?: boolean } = {},
): Promise<LiveSystems> {
  const systems = config.systems ?? {};
  const dataFile = config.mockcore?.data ? resolve(projectDir, config.mockcore.data) : undefined;
  const embedded = Object.values(systems).some((system) => system.base_url === "mockcore:")
    ? await (dataFile
        ? startSharedMockcore({ dataFile, lasting: options.lasting ?? false })
        : startMockcore())
    : undefined;
  const baseUrls = Object.fromEntries(
    Object.entries(systems).flatMap(([name, system]) =>
      system.base_url === "mockcore:" && embedded ? [[name, embedded.url]] : [],
    ),
  );
  try {
    const adapters = await createAdapterResolver(systems, { projectDir, baseUrls });
    return {
      resolve: adapters.resolve,
      async close() {
        await adapters.close();
        await embedded?.close();
      },
    };
  } catch (error) {
    await embedded?.close();
    throw error;
  }
}
