#!/usr/bin/env node
import module from "node:module";

// Node 22.1 and later keep the compiled code of the bundle between runs; older ones lack the call.
module.enableCompileCache?.();
const { main } = await import("../dist/cli-bundle/main.js");
process.exitCode = await main(process.argv.slice(2));
