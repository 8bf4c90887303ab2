// Bundles the CLI into dist/cli-bundle/, which bin/bass.js runs: a few files load faster than the hundred
// small ones tsc writes. The entry holds only the commander wiring, so `--version` and `--help` load no
// command; each command, and each heavy dependency a command imports lazily, is a chunk of its own.
// tsc's per-file dist/ stays as it is: it is the package's API (`exports`) and what tests spawn directly.
import { build } from "esbuild";

/**
 * commander requires node:child_process at load, for subcommands that are executables of their own
 * (bass has none); loading it is a noticeable part of `bass --version`. commander gets it on first use.
 */
const lazyChildProcess = {
  name: "lazy-child-process",
  setup(esbuild) {
    esbuild.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes("/node_modules/commander/") ? { path: args.path, namespace: "lazy" } : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: "lazy" }, () => ({
      contents: `module.exports = new Proxy({}, { get: (_, name) => require("node:child_process")[name] });`,
      loader: "js",
    }));
  },
};

await build({
  entryPoints: { main: "src/cli/main.ts" },
  outdir: "dist/cli-bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.18",
  // The CommonJS packages bundled here (commander, undici) call require() for node's built-ins.
  banner: {
    js: 'import { createRequire as __bassCreateRequire } from "node:module";\nconst require = __bassCreateRequire(import.meta.url);',
  },
  chunkNames: "chunk-[hash]",
  legalComments: "none",
  plugins: [lazyChildProcess],
  logLevel: "warning",
});
