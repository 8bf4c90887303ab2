// The baseline of the validate bench: read every definition file of a project and parse it with its
// source positions (YAML.parseDocument, as bass does), nothing else: the floor a linter cannot go under.
// With --plain-env each parse runs with process.env swapped for a plain copy, as bass's parseYamlSource
// does, so the bench shows what that swap saves.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LineCounter, parseDocument } from "yaml";

const [dir, mode] = process.argv.slice(2);
const folder = join(dir, "integrations");
const plainEnv = mode === "--plain-env" ? { ...process.env } : process.env;
const realEnv = process.env;
let documents = 0;
for (const file of readdirSync(folder)) {
  if (!file.endsWith(".yaml")) continue;
  const text = readFileSync(join(folder, file), "utf8");
  process.env = plainEnv;
  const doc = parseDocument(text, { lineCounter: new LineCounter() });
  process.env = realEnv;
  if (doc.contents !== null) documents++;
}
process.stdout.write(`${documents}\n`);
