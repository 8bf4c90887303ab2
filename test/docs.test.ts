import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { everyCommand } from "./_commands.js";
import { runCli } from "./_helpers.js";

const root = join(import.meta.dirname, "..");
const generator = join(root, "docs", "generate-reference.js");
const regenerate = "run  node docs/generate-reference.js > docs/reference.md  and commit docs/reference.md";

describe("docs/reference.md", () => {
  it("is what docs/generate-reference.js makes of schema/*.schema.json", () => {
    const generated = execFileSync(process.execPath, [generator], { cwd: root, encoding: "utf8" });
    const committed = readFileSync(join(root, "docs", "reference.md"), "utf8");
    expect(committed, `docs/reference.md is out of date with the schemas: ${regenerate}`).toBe(generated);
  });

  it("takes no meaning or default from the script that a schema now gives itself", async () => {
    const { staleSupplements } = await import(pathToFileURL(generator).href);
    expect(
      staleSupplements(),
      `delete these entries from \`supplements\` in docs/generate-reference.js, then ${regenerate}`,
    ).toEqual([]);
  });
});

describe("docs/cli.md", () => {
  const cliDoc = readFileSync(join(root, "docs", "cli.md"), "utf8");

  it.each(everyCommand.map((command) => [command.join(" ") || "bass", command]))(
    "holds the --help of %s word for word",
    async (_, command) => {
      const { code, stdout } = await runCli([...command, "--help"], { cwd: root });
      expect(code).toBe(0);
      // Spaces collapsed: commander wraps help to the terminal's width.
      const words = (text: string) => text.replace(/\s+/g, " ");
      expect(
        words(cliDoc),
        `docs/cli.md lacks the current \`bass ${command.join(" ")} --help\`; paste it in`,
      ).toContain(words(`$ npx bass ${[...command, "--help"].join(" ")}\n${stdout}\`\`\``));
    },
  );
});
