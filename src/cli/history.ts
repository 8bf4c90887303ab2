import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { isSeq, parseDocument, stringify } from "yaml";
import type { Env } from "../definition/load.js";
import type { RunRecord } from "../engine/types.js";
import { BassError } from "../errors.js";
import { resolveRunRef } from "../history/run-ref.js";
import type { HistoryFilter, HistoryStore } from "../history/store.js";
import { openHistory } from "../project/open.js";
import { promoteRun } from "../testing/promote.js";
import { writeFileAtomic } from "../write-atomic.js";
import type { Output } from "./output.js";
import { openProjectFile } from "./project-file.js";
import { renderRecord, renderRunList } from "./render-record.js";

export interface HistoryOptions {
  json: boolean;
  project?: string | undefined;
  cwd: string;
  env: Env;
}

/** `bass history`: the project's runs, newest first, as aligned rows or a JSON array. */
export async function runHistoryList(
  filter: HistoryFilter,
  options: HistoryOptions,
  output: Output,
): Promise<number> {
  const records = await (await historyOf(options)).list(filter);
  output.stdout(
    options.json ? `${JSON.stringify(records, null, 2)}\n` : `${renderRunList(records, output.paint)}\n`,
  );
  return 0;
}

/** `bass history show <id>`: one run as a tree, or as JSON. */
export async function runHistoryShow(id: string, options: HistoryOptions, output: Output): Promise<number> {
  const record = await readRun(id, options);
  output.stdout(
    options.json
      ? `${JSON.stringify(record, null, 2)}\n`
      : renderRecord(record, output.paint, output.columns),
  );
  return 0;
}

/**
 * `bass history promote <id> [--out FILE]`: the run as a test case, masked. Printed as a test file, or added
 * to FILE (created when missing; it must test the same integration).
 */
export async function runHistoryPromote(
  id: string,
  options: HistoryOptions & { out?: string | undefined },
  output: Output,
): Promise<number> {
  const record = await readRun(id, options);
  if (record.status === "running")
    throw new BassError("USAGE", `run ${record.id} is still running; promote it once it has ended`);
  const testCase = promoteRun(record);
  if (!options.out) {
    output.stdout(stringify({ integration: record.integration, cases: [testCase] }));
    return 0;
  }
  const path = resolve(options.cwd, options.out);
  if (!existsSync(path)) {
    const header = `# yaml-language-server: $schema=${schemaFrom(dirname(path))}\n`;
    await writeFileAtomic(path, header + stringify({ integration: record.integration, cases: [testCase] }));
  } else {
    const doc = parseDocument(readFileSync(path, "utf8"));
    const integration = doc.get("integration");
    if (integration !== record.integration) {
      throw new BassError(
        "USAGE",
        `${options.out} tests ${String(integration)}, and run ${id} is of ${record.integration}`,
      );
    }
    const cases = doc.get("cases");
    if (!isSeq(cases)) throw new BassError("USAGE", `${options.out} has no list of cases`);
    if (JSON.stringify(cases.toJSON()).includes(JSON.stringify(testCase.name))) {
      throw new BassError("USAGE", `${options.out} already has the case ${JSON.stringify(testCase.name)}`);
    }
    cases.add(doc.createNode(testCase));
    await writeFileAtomic(path, doc.toString());
  }
  output.stdout(`added case ${JSON.stringify(testCase.name)} to ${options.out}\n`);
  return 0;
}

/**
 * The test schema this bass ships, as a path from `folder`, where an editor resolves the `$schema`
 * comment: `../node_modules/bass/schema/test.schema.json` from a project's `tests/`. Both dist/cli and the
 * bundle's dist/cli-bundle are two folders below the package.
 */
function schemaFrom(folder: string): string {
  const schema = fileURLToPath(new URL("../../schema/test.schema.json", import.meta.url));
  return relative(folder, schema).split(sep).join("/");
}

/** A run of the history; its id is checked before anything reads a file, as an id becomes part of a path. */
async function readRun(ref: string, options: HistoryOptions): Promise<RunRecord> {
  const history = await historyOf(options);
  const id = await resolveRunRef(ref, history);
  const record = await history.read(id);
  if (!record)
    throw new BassError("RUN_NOT_FOUND", `no run ${id} in the history; bass history lists the runs`);
  return record;
}

/** The history store of the project found from the options; a project file with errors cannot be used. */
async function historyOf(options: HistoryOptions): Promise<HistoryStore> {
  return openHistory(await openProjectFile(options));
}
