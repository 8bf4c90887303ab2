import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFINITION, PYTHON_DEFINITION } from "./definitions.js";
import { commandPairRow, runCommand, timeCommands } from "./lib.js";

const bass = fileURLToPath(new URL("../bin/bass.cjs", import.meta.url));

/** The serve bench's integration (two field mappings, a hook) in each language, as an editor's save validates it. */
const definitions = { javascript: DEFINITION, python: PYTHON_DEFINITION };

/**
 * `bass validate` of a project whose one definition has Python cells, against the same project in
 * JavaScript: whole processes, CPU time, taking turns. bass reads the cells without CPython, which
 * validate loads only for a cell it cannot vouch for (none here).
 */
export async function measurePythonValidate({ runs = 5 } = {}) {
  const root = mkdtempSync(join(tmpdir(), "bass-bench-validate-python-"));
  try {
    const projects = Object.fromEntries(
      Object.entries(definitions).map(([language, text]) => {
        const dir = join(root, language);
        mkdirSync(join(dir, "integrations"), { recursive: true });
        writeFileSync(join(dir, "bass.config.yaml"), "systems:\n  echo:\n    adapter: echo\n");
        writeFileSync(join(dir, "integrations", "bench.serve.yaml"), text);
        return [language, dir];
      }),
    );
    const validate = (dir) => [process.execPath, bass, "validate", "--project", dir];
    for (const dir of Object.values(projects)) runCommand(validate(dir), root);
    const [python, javascript] = timeCommands([validate(projects.python), validate(projects.javascript)], {
      runs,
      cwd: root,
    });
    return [
      commandPairRow({
        name: "validate, a Python definition",
        measured: python,
        baseline: javascript,
        label: "the same in JavaScript (CPU)",
        goal: { text: "at most 2×", max: 2, of: "ratio" },
        runs,
        says: (ratio, figures) =>
          `bass validate of a project with one Python definition takes ${ratio}× the CPU of the same project in JavaScript (${figures}): the cells are read without CPython`,
      }),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
