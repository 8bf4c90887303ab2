import type { SystemConfig } from "../definition/types.js";
import { BassError } from "../errors.js";
import type { Adapter, AdapterResolver } from "./adapter.js";
import { echoAdapter } from "./echo.js";
import { createHttpAdapter } from "./http.js";
import { loadModuleAdapter } from "./module.js";

export interface AdapterResolverOptions {
  /** The folder of the project file; module adapter paths are relative to it. */
  projectDir: string;
  /** Base URLs that replace the project file's, by system (the embedded mock core's address for `mockcore:`). */
  baseUrls?: Record<string, string>;
}

/** The adapter of every system, created once; `close` ends the http adapters' connection pools. */
export async function createAdapterResolver(
  systems: Readonly<Record<string, SystemConfig>>,
  options: AdapterResolverOptions,
): Promise<{ resolve: AdapterResolver; close(): Promise<void> }> {
  const adapters = new Map<string, Adapter>();
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    await Promise.all(closers.map((closeOne) => closeOne()));
  };
  try {
    for (const [name, configured] of Object.entries(systems)) {
      const baseUrl =
        options.baseUrls && Object.hasOwn(options.baseUrls, name) ? options.baseUrls[name] : undefined;
      const config = baseUrl === undefined ? configured : { ...configured, base_url: baseUrl };
      if (config.base_url?.startsWith("mockcore:"))
        throw new BassError(
          "ADAPTER_UNAVAILABLE",
          `system ${name} has base_url mockcore:; the caller must start the mock core and pass its address in baseUrls`,
        );
      if (config.adapter === "echo") adapters.set(name, echoAdapter);
      else if (config.adapter === "http") {
        const adapter = createHttpAdapter({ name, config });
        closers.push(adapter.close);
        adapters.set(name, adapter);
      } else
        adapters.set(name, await loadModuleAdapter(config.adapter, options.projectDir, { name, config }));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    resolve(system) {
      const adapter = adapters.get(system);
      if (!adapter)
        throw new BassError("ADAPTER_UNAVAILABLE", `no system named ${system} in the project file's systems`);
      return adapter;
    },
    close,
  };
}
