import { resolve } from "node:path";
import type { Env } from "../definition/load.js";
import { BassError } from "../errors.js";
import { formatBroken, formatIssueList } from "../project/usable.js";
import { createOpenApiDocument } from "../serve/openapi.js";
import { loadServedSet } from "../serve/served-set.js";
import { writeFileAtomic } from "../write-atomic.js";
import type { Output } from "./output.js";

export interface OpenApiCommandOptions {
  out?: string | undefined;
  project?: string | undefined;
  cwd: string;
  env: Env;
}

/** `bass openapi [--out FILE]`: the OpenAPI 3.1 document of the endpoints `bass serve` answers. */
export async function runOpenApi(options: OpenApiCommandOptions, output: Output): Promise<number> {
  const loaded = await loadServedSet({ cwd: options.cwd, env: options.env, projectDir: options.project });
  if (!loaded.ok) {
    throw new BassError(
      "DEFINITION_INVALID",
      `the project cannot be described until these are fixed:\n${formatIssueList(loaded.issues)}`,
    );
  }
  const { settings, definitions, broken } = loaded.set;
  output.stderr(formatBroken(broken));
  const document = createOpenApiDocument(definitions, {
    title: "bass",
    serverUrl: `http://${settings.host}:${settings.port}`,
    auth: settings.auth,
  });
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (!options.out) {
    output.stdout(text);
    return 0;
  }
  await writeFileAtomic(resolve(options.cwd, options.out), text);
  // A command that writes a file says so, as `bass init` and `history promote --out` do.
  const operations = Object.values(document.paths).reduce(
    (sum, item) => sum + Object.keys(item).filter((key) => key !== "parameters").length,
    0,
  );
  output.stderr(
    `wrote ${options.out} (${operations} operation${operations === 1 ? "" : "s"} of ${definitions.length} integration${definitions.length === 1 ? "" : "s"})\n`,
  );
  return 0;
}
