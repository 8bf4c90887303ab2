#!/usr/bin/env node
import module from "node:module";

// Node 22.1 and later keep the compiled code of the bundle between runs; older ones lack the call.
module.enableCompileCache?.();
const args = process.argv.slice(2);
// A one-shot run parses a few HTTP answers: V8's baseline code for undici's WebAssembly parser is enough,
// and compiling its optimized code costs more than the run (bench/run-start.js, the live run).
if (args.find((arg) => !arg.startsWith("-")) === "run" && !args.some((arg) => /^--(mock|replay)\b/.test(arg)))
  (await import("node:v8")).setFlagsFromString("--liftoff-only");
const { guardCellRejections, main } = await import("../dist/cli-bundle/main.js");
const engine = guardCellRejections();
process.exitCode = await main(args, { engine });
