// The baseline of the validate bench: read and YAML-parse every definition file of a project, nothing else.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

const folder = join(process.argv[2], "integrations");
let documents = 0;
for (const file of readdirSync(folder)) {
  if (file.endsWith(".yaml") && parse(readFileSync(join(folder, file), "utf8")) !== null) documents++;
}
process.stdout.write(`${documents}\n`);
