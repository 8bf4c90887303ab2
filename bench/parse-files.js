// The baseline of the validate bench: read every definition file of a project and parse it with its
// source positions (YAML.parseDocument, as bass does), nothing else: the floor a linter cannot go under.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LineCounter, parseDocument } from "yaml";

const folder = join(process.argv[2], "integrations");
let documents = 0;
for (const file of readdirSync(folder)) {
  if (!file.endsWith(".yaml")) continue;
  const doc = parseDocument(readFileSync(join(folder, file), "utf8"), { lineCounter: new LineCounter() });
  if (doc.contents !== null) documents++;
}
process.stdout.write(`${documents}\n`);
