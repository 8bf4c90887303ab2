import { CommanderError } from "commander";
import { createEngine, type Engine } from "../engine/engine.js";
import { isBassError } from "../errors.js";
import { systemErrorMessage } from "../system-error.js";
import type { ProgramContext } from "./command-kit.js";
import type { Writers } from "./output.js";
import { processWriters } from "./process-writers.js";
import { createProgram } from "./program.js";

export interface MainOptions {
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
  write?: Writers;
  /** Standard input, for `--input -`. */
  readStdin?: () => Promise<string>;
  /** The process's engine, whose rejections `guardCellRejections` watches (default: each project its own). */
  engine?: Engine;
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The process's engine: a promise a cell of its runs started and left rejected fails that cell's run, never
 * the process; any other rejection nobody handled is a bug of bass's and ends it, as Node would.
 */
export function guardCellRejections(): Engine {
  const engine = createEngine();
  process.on("unhandledRejection", (reason, promise) => {
    if (!engine.rejections.note(reason, promise)) throw reason;
  });
  return engine;
}

/** Runs the CLI and returns its exit code: the one place where errors become messages and exit codes. */
export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  const context: ProgramContext = {
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    write: options.write ?? processWriters,
    readStdin: options.readStdin ?? readProcessStdin,
    engine: options.engine,
    exitCode: 0,
  };
  const stderr = context.write.stderr;
  // A reader that stops early (`bass history --json | head`) closes the pipe: bass ends quietly.
  if (context.write === processWriters) endQuietlyOnClosedStdout();
  try {
    await createProgram(context).parseAsync([...argv], { from: "user" });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    stderr(`bass: ${errorMessage(error, context.cwd)}\n`);
    return 2;
  }
}

/** What bass says of an error that stopped a command: where in which file, if it knows, and what. */
function errorMessage(error: unknown, cwd: string): string {
  if (isBassError(error)) {
    const at = error.position;
    return `${at ? `${at.file}:${at.line}:${at.column}: ` : ""}${error.message}`;
  }
  return systemErrorMessage(error, cwd) ?? `unexpected error: ${(error as Error).stack ?? String(error)}`;
}

let guarded = false;

function endQuietlyOnClosedStdout(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  });
}
