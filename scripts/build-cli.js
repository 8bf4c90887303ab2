// Bundles the CLI into dist/cli-bundle/, which bin/bass.cjs runs: one file loads faster than the hundred
// small ones tsc writes, and than chunks through the ES module loader. tsc's per-file dist/ stays as it
// is: it is the package's API (`exports`) and what tests spawn directly.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

/**
 * What the project cache's entries are keyed by (src/project/cache.ts): a hash of everything the bundle is
 * built from, so that no build reads what another build worked out.
 */
function buildId() {
  const hash = createHash("sha256");
  const files = ["package-lock.json", ...["src", "schema"].flatMap((dir) => listFiles(dir))].sort();
  for (const file of files) hash.update(file).update("\0").update(readFileSync(file)).update("\0");
  return hash.digest("hex").slice(0, 16);
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

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

/**
 * undici's client requires its HTTP/2 half at load, which loads node:http2 and node:tls; bass speaks
 * HTTP/1.1 to its systems (undici's default), so the bundle requires that half on its first call.
 */
const lazyHttp2Client = {
  name: "lazy-http2-client",
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/ }, (args) => {
      const eager = "const connectH2 = require('./client-h2.js')";
      const source = readFileSync(args.path, "utf8");
      if (!source.includes(eager)) throw new Error(`${args.path} no longer holds: ${eager}`);
      return {
        contents: source.replace(eager, "const connectH2 = (...args) => require('./client-h2.js')(...args)"),
        loader: "js",
      };
    });
  },
};

const shared = {
  // Pyodide loads its WebAssembly and standard library from beside its own files: it stays where npm
  // put it.
  external: ["pyodide"],
  outdir: "dist/cli-bundle",
  bundle: true,
  platform: "node",
  target: "node20.19",
  define: { __BASS_BUILD_ID__: JSON.stringify(buildId()) },
  legalComments: "none",
  plugins: [lazyChildProcess, lazyHttp2Client],
  logLevel: "warning",
};

// The CLI: one CommonJS file, which bin/bass.cjs's launcher compiles from V8's code cache (src/cli/launch.ts).
// A module's code that a command does not import runs no more than it did in chunks of their own.
await build({
  ...shared,
  entryPoints: { main: "src/cli/main.ts", launch: "src/cli/launch.ts" },
  format: "cjs",
  outExtension: { ".js": ".cjs" },
  // What the sources read as import.meta.url: the bundle's own file, so paths from it hold as from a chunk.
  define: { ...shared.define, "import.meta.url": "__bassFileUrl" },
  banner: { js: 'const __bassFileUrl = require("node:url").pathToFileURL(__filename).href;' },
});

// The worker threads that run integrations start from a file of their own, an ES module.
await build({
  ...shared,
  entryPoints: { "run-worker": "src/pool/run-worker.ts" },
  format: "esm",
  // The CommonJS packages bundled here (commander, undici) call require() for node's built-ins.
  banner: {
    js: 'import { createRequire as __bassCreateRequire } from "node:module";\nconst require = __bassCreateRequire(import.meta.url);',
  },
});
