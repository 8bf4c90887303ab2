// Packs package.json as a user installs it: `npm pack` runs this with `strip` first (prepack) and
// `restore` last (postpack). The checkout's scripts (prepare builds on `npm ci`) and devDependencies stay
// out of the tarball: npm warns a project about every dependency that has an install script.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const manifest = "package.json";
const kept = "package.json.checkout";

if (process.argv[2] === "strip") {
  // A pack that failed before its postpack left the checkout's manifest aside: it is the one to strip.
  if (!existsSync(kept)) renameSync(manifest, kept);
  const { scripts, devDependencies, ...packed } = JSON.parse(readFileSync(kept, "utf8"));
  writeFileSync(manifest, `${JSON.stringify(packed, null, 2)}\n`);
} else if (process.argv[2] === "restore") {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  throw new Error("usage: node scripts/pack.js strip|restore");
}
