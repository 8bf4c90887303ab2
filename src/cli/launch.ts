// Starts the CLI bundle for bin/bass.cjs (built to dist/cli-bundle/launch.cjs): the bundle is one file,
// compiled from V8's code cache when an earlier run of the same build, Node and flags left one.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { constants, Script } from "node:vm";
import { userCacheDir } from "../cache-dir.js";
import { lentImport } from "../import-module.js";
import type { guardCellRejections, main } from "./main.js";

declare const __BASS_BUILD_ID__: string | undefined;

interface Cli {
  main: typeof main;
  guardCellRejections: typeof guardCellRejections;
}

/** Runs bass with the command line's arguments and sets the process's exit code. */
export async function launch(args: readonly string[]): Promise<void> {
  // Node 22.1 and later keep the compiled code of the ES modules bass loads later (worker threads, Pyodide).
  (Module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const flags = v8Flags(args);
  // Set before the bundle is compiled: a code cache holds the flags it was made under.
  for (const flag of flags) setFlagsFromString(flag);
  const bundle = fileURLToPath(new URL("main.cjs", import.meta.url));
  const build = typeof __BASS_BUILD_ID__ === "string" ? __BASS_BUILD_ID__ : "sources";
  const variant = flags.includes("--liftoff-only") ? "-liftoff" : "";
  // One cache per command: each holds the code its own command compiled, not the first command's. And one
  // per bundle's place: Node 20's V8 gives a script compiled from a cache the file name of the script that
  // made it, so another copy of the same build would print that copy's paths in its stacks.
  const cacheFile = join(
    userCacheDir(),
    `cli-${build}-${placeOf(bundle)}-${process.version}-${process.arch}${variant}-${commandOf(args)}.code`,
  );
  const cachedData = readOrNothing(cacheFile);
  // esbuild writes the bundle as ASCII, so reading it as latin1 spares decoding UTF-8.
  const script = new Script(Module.wrap(readFileSync(bundle, "latin1")), {
    filename: bundle,
    cachedData,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  // Node 20 loses the import() of a script compiled from a code cache: the bundle imports through this one.
  (globalThis as { [lentImport]?: unknown })[lentImport] = (specifier: string) => import(specifier);
  const cli: { exports: Partial<Cli> } = { exports: {} };
  script.runInThisContext()(cli.exports, createRequire(bundle), cli, bundle, dirname(bundle));
  const { guardCellRejections, main } = cli.exports as Cli;
  process.exitCode = await main(args, { engine: guardCellRejections() });
  // After the run, the cache holds what it compiled too: the next start of the same command compiles less.
  if (cachedData === undefined || script.cachedDataRejected) {
    keep(cacheFile, script.createCachedData());
    forgetOldBuilds(dirname(cacheFile), build);
  }
}

/**
 * The V8 flags of this process: the cells' regular expressions fall back to the linear-time engine (the
 * realm asks for it too); contexts made from now on have `gc`; a one-shot live run parses a few HTTP answers, for which V8's baseline code for
 * undici's WebAssembly parser is enough, and compiling its optimized code costs more than the run.
 */
function v8Flags(args: readonly string[]): string[] {
  // gc for the threads that give memory back after a large run (src/heap.ts): set here, before any worker
  // thread exists, since a flag set while other threads run can crash the process.
  const flags = ["--enable-experimental-regexp-engine-on-excessive-backtracks", "--expose-gc"];
  if (commandOf(args) === "run" && !args.some((arg) => /^--(mock|replay)\b/.test(arg)))
    flags.push("--liftoff-only");
  return flags;
}

/** A short name for a file's path (FNV-1a, in hex): the start spares loading node:crypto for it. */
export function placeOf(path: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < path.length; index++) {
    hash ^= path.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** The command a command line runs, as a file name may hold it: its first word, or "bass" for none. */
function commandOf(args: readonly string[]): string {
  const word = args.find((arg) => !arg.startsWith("-")) ?? "bass";
  return /^[a-z]+$/.test(word) ? word : "other";
}

function readOrNothing(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** How long another build's cache is kept after it was written: another project may still run that build. */
const oldBuildMs = 7 * 24 * 3600_000;

/** Removes the caches of other builds written more than a week ago. */
function forgetOldBuilds(dir: string, build: string): void {
  try {
    for (const name of readdirSync(dir)) {
      if (!/^cli-.*\.code$/.test(name) || name.startsWith(`cli-${build}-`)) continue;
      const file = join(dir, name);
      if (Date.now() - statSync(file).mtimeMs > oldBuildMs) rmSync(file, { force: true });
    }
  } catch {}
}

/** Writes the cache whole or not at all; one that cannot be written only costs the next start its work. */
function keep(file: string, data: Buffer): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, data);
    renameSync(temp, file);
  } catch {}
}
