import type { Writers } from "./output.js";

/**
 * The process's own stdout and stderr. Without a colorLevel, createOutput takes the colour chalk detects
 * for stdout (it honours FORCE_COLOR): chalk is loaded by the command that prints, not by `--version`.
 */
export const processWriters: Writers = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  get columns() {
    return process.stdout.isTTY ? process.stdout.columns : undefined;
  },
};
