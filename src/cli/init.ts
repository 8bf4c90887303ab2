import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import {
  assertNotAFile,
  firstSteps,
  keepStateOutOfGit,
  packageRoot,
  refuseTakenFiles,
  schemasFrom,
  writeNewFile,
} from "./new-project-files.js";
import type { Output } from "./output.js";

/** What `bass init` can make: a small working project, or a copy of the samples. */
export const initTemplates = ["starter", "samples"] as const;
export type InitTemplate = (typeof initTemplates)[number];

export interface InitOptions {
  template: InitTemplate;
  cwd: string;
  /** How the user runs bass (`npx bass` through npx), for the commands printed at the end. */
  command: string;
}

const templateFolders: Record<InitTemplate, string> = {
  starter: join(packageRoot, "templates", "init"),
  samples: join(packageRoot, "samples"),
};
const schemaComment = /^(# yaml-language-server: \$schema=)\S*?([\w-]+\.schema\.json)$/m;

/**
 * `bass init [DIR]`: a project that validates, runs and passes its test as it is. Refuses (exit 2) to
 * write over any file; a `.gitignore` that is there already gets the `.bass/` line it lacks.
 */
export function runInit(dir: string | undefined, options: InitOptions, output: Output): number {
  const target = resolve(options.cwd, dir ?? ".");
  assertNotAFile(target, dir ?? ".", "bass init takes the folder to make the project in");
  const files = templateFiles(templateFolders[options.template]);
  refuseTakenFiles(
    target,
    files.map((file) => file.to),
    "bass init",
    "choose an empty folder (bass init my-project)",
  );
  for (const file of files) write(target, file);
  const written = files.length + keepStateOutOfGit(target);
  const where = relative(options.cwd, target) || ".";
  output.stdout(`made a bass project in ${where} (${written} files). Next:\n`);
  const { steps: first, bass } = firstSteps(target, where, options.command);
  const steps = [
    ...first,
    `${bass} validate`,
    options.template === "samples"
      ? `${bass} run customers.create --input inputs/customers.create.json`
      : `${bass} run customers.retrieve --input inputs/customers.retrieve.json --input-envelope`,
    `${bass} test`,
  ];
  output.stdout(steps.map((step) => `  ${step}\n`).join(""));
  return 0;
}

interface TemplateFile {
  from: string;
  /** Its path in the new project, with `/`. */
  to: string;
}

/** Every file under a template folder but bass's own state, with the name it gets in the project. */
function templateFiles(folder: string, under = ""): TemplateFile[] {
  return readdirSync(join(folder, under), { withFileTypes: true })
    .filter((entry) => entry.name !== ".bass")
    .flatMap((entry) => {
      const path = under ? `${under}/${entry.name}` : entry.name;
      if (entry.isDirectory()) return templateFiles(folder, path);
      return [{ from: join(folder, path), to: path }];
    });
}

/** Writes one file, its `$schema` comment pointing at the schemas of this bass from the file's folder. */
function write(target: string, { from, to }: TemplateFile): void {
  const text = readFileSync(from, "utf8");
  writeNewFile(target, to, text.replace(schemaComment, `$1${schemasFrom(target, to)}/$2`));
}
