import { Chalk, type ChalkInstance, type ColorSupportLevel, supportsColor } from "chalk";

/** Where text goes, and how much colour stdout shows (0: none); nothing bass writes to stderr is coloured. */
export interface Writers {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Absent: the colour chalk detects for the process's stdout. */
  colorLevel?: ColorSupportLevel;
  /** The width of the terminal stdout shows on, when it is one. */
  columns?: number | undefined;
}

/** What a command prints with: everything that prints goes through here. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Colour on stdout: the terminal shows it, and neither `--no-color` nor `NO_COLOR` says otherwise. */
  color: boolean;
  paint: ChalkInstance;
  /** The terminal's width, when stdout is a terminal: lines are cut to it there, never wrapped. */
  columns: number | undefined;
}

export interface CreateOutputOptions {
  /** false for `--no-color` or a set `NO_COLOR`. */
  color: boolean;
  write: Writers;
}

/** An Output on the writers given, coloured only where allowed and shown. */
export function createOutput(options: CreateOutputOptions): Output {
  const level = options.color ? (options.write.colorLevel ?? (supportsColor ? supportsColor.level : 0)) : 0;
  return {
    stdout: options.write.stdout,
    stderr: options.write.stderr,
    color: level > 0,
    paint: new Chalk({ level }),
    columns: options.write.columns,
  };
}
