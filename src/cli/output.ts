import { Chalk, type ChalkInstance, type ColorSupportLevel, supportsColor, supportsColorStderr } from "chalk";

/** Where text goes, and how much colour each destination shows (0: none). */
export interface Writers {
  stdout(text: string): void;
  stderr(text: string): void;
  colorLevels: { stdout: ColorSupportLevel; stderr: ColorSupportLevel };
}

/** The process's own stdout and stderr, with the colour chalk detects for them (it honours FORCE_COLOR). */
export const processWriters: Writers = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  colorLevels: {
    stdout: supportsColor ? supportsColor.level : 0,
    stderr: supportsColorStderr ? supportsColorStderr.level : 0,
  },
};

/** What a command prints with: everything that prints goes through here. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Colour on stdout: the terminal shows it, and neither `--no-color` nor `NO_COLOR` says otherwise. */
  color: boolean;
  paint: ChalkInstance;
  /** The same for stderr. */
  paintError: ChalkInstance;
}

export interface CreateOutputOptions {
  /** false for `--no-color` or a set `NO_COLOR`. */
  color: boolean;
  write: Writers;
}

/** An Output on the writers given, coloured only where allowed and shown. */
export function createOutput(options: CreateOutputOptions): Output {
  const level = options.color ? options.write.colorLevels.stdout : 0;
  const errorLevel = options.color ? options.write.colorLevels.stderr : 0;
  return {
    stdout: options.write.stdout,
    stderr: options.write.stderr,
    color: level > 0,
    paint: new Chalk({ level }),
    paintError: new Chalk({ level: errorLevel }),
  };
}
