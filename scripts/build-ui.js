// Builds the run history page that `bass serve` answers at /_bass/ into dist/ui/: one script (Preact and
// htm bundled in, minified), its stylesheet and its page. Nothing on the page comes from another host.
import { copyFileSync, mkdirSync } from "node:fs";
import { build } from "esbuild";

mkdirSync("dist/ui", { recursive: true });
await build({
  entryPoints: ["ui/app.ts"],
  outfile: "dist/ui/app.js",
  bundle: true,
  minify: true,
  format: "iife",
  target: ["chrome120", "firefox120", "safari17"],
  legalComments: "none",
});
copyFileSync("ui/index.html", "dist/ui/index.html");
copyFileSync("ui/app.css", "dist/ui/app.css");
