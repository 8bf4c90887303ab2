import { Chalk, type ChalkInstance, supportsColor, supportsColorStderr } from "chalk";

export interface Writers {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The process's own stdout and stderr. */
export const processWriters: Writers = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/** Where a command prints; tests pass their own to read what was printed. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Colour on stdout: the terminal supports it, and neither `--no-color` nor `NO_COLOR` says otherwise. */
  color: boolean;
  paint: ChalkInstance;
  /** The same for stderr. */
  paintError: ChalkInstance;
}

export interface CreateOutputOptions {
  color?: boolean;
  write?: Writers;
}

/** The process's own stdout and stderr, or the writers given. */
export function createOutput(options: CreateOutputOptions = {}): Output {
  const write = options.write ?? processWriters;
  const allowed = options.color !== false;
  const level = allowed && supportsColor ? supportsColor.level : 0;
  const errorLevel = allowed && supportsColorStderr ? supportsColorStderr.level : 0;
  return {
    stdout: write.stdout,
    stderr: write.stderr,
    color: level > 0,
    paint: new Chalk({ level }),
    paintError: new Chalk({ level: errorLevel }),
  };
}
