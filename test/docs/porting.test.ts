import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir, freePort } from "../_helpers.js";
import {
  fencedBlockAfter,
  normalize,
  repoRoot,
  runExample,
  startExample,
  withBassInstalled,
  withoutRunIds,
} from "./_examples.js";
import { examplesOf, markdownBlocks } from "./_markdown.js";

const porting = readFileSync(join(repoRoot, "docs", "porting.md"), "utf8");
const examples = markdownBlocks(porting).flatMap((block) =>
  block.kind === "fence" && block.lang === "console" ? examplesOf(block) : [],
);

const alike = (text: string) => withoutRunIds(normalize(text));

describe("docs/porting.md, walked as a reader does", () => {
  it("imports the docs' export, and validates, runs, tests and serves it as the page shows", async () => {
    const root = withBassInstalled(createTempDir());
    mkdirSync(join(root, "docs", "porting"), { recursive: true });
    cpSync(join(repoRoot, "docs", "porting", "export.json"), join(root, "docs", "porting", "export.json"));
    const port = String(await freePort());
    let cwd = root;
    let serve: Awaited<ReturnType<typeof startExample>> | undefined;
    try {
      for (const example of examples) {
        const where = `docs/porting.md:${example.line}: ${example.command}`;
        const command = example.command.replaceAll("3000", port);
        if (command.startsWith("cd ")) {
          cwd = join(cwd, command.slice(3));
          continue;
        }
        if (command === "npx bass test") {
          mkdirSync(join(cwd, "tests"), { recursive: true });
          writeFileSync(
            join(cwd, "tests", "customer_lookup.test.yaml"),
            fencedBlockAfter(porting, "Write the cases"),
          );
        }
        if (command.startsWith("npx bass serve")) {
          serve = await startExample(command, { cwd, started: /listening on/, timeoutMs: 20_000 });
          expect(alike(serve.printed), where).toBe(alike(example.output.replaceAll("3000", port)));
          continue;
        }
        const result = runExample(command, { cwd, timeoutMs: 60_000 });
        expect(result.code, `${where}\n${result.stderr}`).toBe(0);
        expect(alike(result.stdout), where).toBe(alike(example.output));
      }
    } finally {
      await serve?.stop();
    }
    expect(examples.map((example) => example.command.split(" ").slice(0, 3).join(" "))).toEqual([
      "npx bass import",
      "cd customers",
      "npx bass validate",
      'echo \'{ "customer_id":',
      "npx bass run",
      "npx bass test",
      "npx bass serve",
      "curl -s -X",
    ]);
  }, 120_000);
});
