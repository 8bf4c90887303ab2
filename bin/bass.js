#!/usr/bin/env node
import module from "node:module";
import v8 from "node:v8";

// Node 22.1 and later keep the compiled code of the bundle between runs; older ones lack the call.
module.enableCompileCache?.();
// A one-shot run parses a few HTTP answers: V8's baseline code for undici's WebAssembly parser is enough,
// and compiling its optimized code costs more than the run (bench/startup.js, the live run).
if (process.argv.slice(2).find((arg) => !arg.startsWith("-")) === "run")
  v8.setFlagsFromString("--liftoff-only");
const { main } = await import("../dist/cli-bundle/main.js");
process.exitCode = await main(process.argv.slice(2));
