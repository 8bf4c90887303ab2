import { type Command, InvalidArgumentError, Option } from "commander";
import type { Engine } from "../engine/engine.js";
import type { Output, Writers } from "./output.js";
import { processWriters } from "./process-writers.js";

export interface ProgramContext {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  write: Writers;
  readStdin: () => Promise<string>;
  /** The process's engine, for the commands that run cells (see guardCellRejections). */
  engine?: Engine | undefined;
  /** Set by the command that ran: the process's exit code. */
  exitCode: number;
}

/** The options every command of a project takes. */
export interface GlobalOptions {
  project?: string;
  color: boolean;
  envFile?: string[];
  /** `--quiet`: results and errors only. */
  quiet?: boolean;
}

/** What a command's file is given to add itself: the process's context and what commands share. */
export interface CommandKit {
  context: ProgramContext;
  /** The installed package's version. */
  version: string;
  /** The command with the options every command of a project takes. */
  globals(command: Command): Command;
  /** The output a command prints with, coloured as its options and NO_COLOR allow. */
  outputFor(options: Pick<GlobalOptions, "color" | "quiet">): Promise<Output>;
}

/** A command's file: it adds the command to the program, and gives its help's examples by command name. */
export interface CommandFile {
  add(program: Command, kit: CommandKit): void;
  examples: Record<string, string[]>;
}

/** `--port`: a whole number from 0 to 65535. */
export function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new InvalidArgumentError("give a port from 0 to 65535");
  return Number(text);
}

/** `--latency`: a whole number of milliseconds, 0 or more. */
export function parseMilliseconds(text: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new InvalidArgumentError("give a whole number of milliseconds");
  return Number(text);
}

/** A rate: a number from 0 to 1, such as 0.2. */
export function parseRate(text: string): number {
  const rate = Number(text);
  if (!/^\d*\.?\d+$/.test(text) || rate > 1)
    throw new InvalidArgumentError("give a number from 0 to 1, such as 0.2");
  return rate;
}

/** A share in percent: a number from 0 to 100, or more for a threshold no suite can meet. */
export function parsePercent(text: string): number {
  if (!/^\d+(\.\d+)?$/.test(text)) throw new InvalidArgumentError("give a share in percent, such as 80");
  return Number(text);
}

/** `--limit`: a whole number of runs, 1 or more. */
export function parseLimit(text: string): number {
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1) throw new InvalidArgumentError("give a whole number of 1 or more");
  return limit;
}

/** How the user ran bass, for commands bass prints: `npx bass` when npx ran it, else `bass`. */
export function invokedAs(env: Readonly<Record<string, string | undefined>>): string {
  return env.npm_command === "exec" ? "npx bass" : "bass";
}

/** Commander's way to take an option more than once: each value is added to the list. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--json`, or `--format json`: the one idea under its two names. */
export interface JsonOptions {
  json: boolean;
  format?: string;
}

export function asJson(options: JsonOptions): boolean {
  return options.json || options.format === "json";
}

/** `--format text|json`: the same as `--json`, under the name `test` and `validate` use. */
export function textOrJson(): Option {
  return new Option("--format <format>", "output format (json: as --json)").choices(["text", "json"]);
}

/** Where a line for a person watching goes: the process's own stderr, when it is a terminal and not `--quiet`. */
export function terminalProgress(
  context: ProgramContext,
  { quiet }: Pick<GlobalOptions, "quiet">,
): ((text: string) => void) | undefined {
  return context.write === processWriters && process.stderr.isTTY && !quiet
    ? (text: string) => void process.stderr.write(text)
    : undefined;
}
