import { resolve } from "node:path";
import type { ProjectConfig } from "../definition/types.js";
import { startMockcore } from "../mockcore/server.js";
import type { AdapterResolver } from "./adapter.js";
import { createAdapterResolver } from "./resolve.js";

export interface LiveSystems {
  resolve: AdapterResolver;
  close(): Promise<void>;
}

/**
 * The adapters of a project's systems, live. Systems on `base_url: mockcore:` talk to a mock core started in
 * this process on a loopback port (SPEC §9), its state in the project's `mockcore.data` file when it has one.
 */
export async function startSystems(config: ProjectConfig, projectDir: string): Promise<LiveSystems> {
  const systems = config.systems ?? {};
  const embedded = Object.values(systems).some((system) => system.base_url === "mockcore:")
    ? await startMockcore({
        dataFile: config.mockcore?.data ? resolve(projectDir, config.mockcore.data) : undefined,
      })
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
