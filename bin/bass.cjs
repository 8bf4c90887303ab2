#!/usr/bin/env node
"use strict";
// bass's command, in CommonJS, which Node starts fastest: it answers --version itself, and leaves the rest
// to the CLI bundle's launcher (src/cli/launch.ts).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`${require("../package.json").version}\n`);
} else {
  require("../dist/cli-bundle/launch.cjs").launch(args);
}
