import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { SystemConfig } from "../definition/types.js";
import { BassError } from "../errors.js";
import { importModule } from "../import-module.js";
import type { Adapter, AdapterCallContext, AdapterRequest, AdapterResponse } from "./adapter.js";

/** What a module adapter exports (docs/behaviour.md#systems-and-adapters). */
type ModuleExecute = (request: AdapterRequest, config: SystemConfig, context: AdapterCallContext) => unknown;

/** Imports a module adapter (`adapter: ./path.js`, relative to the project file's folder) and checks that it exports `execute`. */
export async function loadModuleAdapter(
  specifier: string,
  projectDir: string,
  system: { name: string; config: SystemConfig },
): Promise<Adapter> {
  const path = resolve(projectDir, specifier);
  const where = `system ${system.name}: adapter module ${specifier}`;
  if (!existsSync(path))
    throw new BassError("ADAPTER_UNAVAILABLE", `${where} not found (looked for ${path})`);
  let loaded: Record<string, unknown>;
  try {
    loaded = await importModule(pathToFileURL(path).href);
  } catch (error) {
    throw new BassError("ADAPTER_UNAVAILABLE", `${where} cannot be loaded: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const execute = loaded.execute;
  if (typeof execute !== "function")
    throw new BassError(
      "ADAPTER_UNAVAILABLE",
      `${where} (${path}) exports no function execute(request, config, context)`,
    );

  return {
    async execute(request, context) {
      let answer: unknown;
      try {
        answer = await (execute as ModuleExecute)(request, system.config, context);
      } catch (error) {
        return failure(`${where} threw: ${error instanceof Error ? error.message : String(error)}`);
      }
      return normalizeAnswer(answer, where);
    },
  };
}

/** A module's answer as an AdapterResponse; modules are user code, so nothing about the shape is taken on trust. */
function normalizeAnswer(answer: unknown, where: string): AdapterResponse {
  if (answer === null || typeof answer !== "object" || Array.isArray(answer))
    return failure(
      `${where} answered ${answer === null ? "null" : typeof answer}, not { success, status?, payload, messages }`,
    );
  const { success, status, payload, messages } = answer as Record<string, unknown>;
  if (typeof success !== "boolean") return failure(`${where} answered without success: true or false`);
  return {
    success,
    status: Number.isInteger(status) ? (status as number) : undefined,
    payload: payload ?? null,
    messages: Array.isArray(messages) ? messages.map(String) : typeof messages === "string" ? [messages] : [],
  };
}

function failure(message: string): AdapterResponse {
  return { success: false, payload: null, messages: [message] };
}
