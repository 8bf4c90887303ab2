import type { Command } from "commander";
import { type CommandKit, invokedAs } from "../command-kit.js";

export const examples: Record<string, string[]> = {
  import: ["import glyue export.json --out my-project"],
  "import glyue": ["import glyue export.json --out my-project"],
};

export function add(program: Command, { context, outputFor }: CommandKit): void {
  const importer = program
    .command("import")
    .description(
      "make a bass project of another platform's export: glyue (Glyue, now nCino Integration Gateway)",
    );
  importer
    .command("glyue")
    .description(
      "convert a Glyue (nCino Integration Gateway) integration export into a bass project: a definition per integration with its Python cells, bass.config.yaml with the systems and vaults, and IMPORT-REPORT.md listing what could not be carried over (printed too); writes over no file",
    )
    .argument("<export>", "the export: the platform's JSON file of tables (integration, servicerequest, …)")
    .option("--out <dir>", "the folder to write the project in (default: the current folder)")
    .option("--no-color", "no colour, also when the terminal has it (NO_COLOR is honoured too)")
    .action(async (file: string, options: { out?: string; color: boolean }) => {
      const { runImportGlyue } = await import("../import-glyue.js");
      context.exitCode = runImportGlyue(
        file,
        { out: options.out, cwd: context.cwd, command: invokedAs(context.env) },
        await outputFor(options),
      );
    });
}
