import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pairRatios, runCommand, timeCommands } from "./lib.js";

const bass = fileURLToPath(new URL("../bin/bass.cjs", import.meta.url));

/** One integration (two field mappings, a hook) in each language, as an editor's save validates it. */
const definitions = {
  javascript: `name: people.create
service_requests:
  - formula_variable: person
    system: echo
    field_mappings:
      - field: firstName
        value: input.payload.first_name.trim()
      - field: email
        value: input.payload.email
on_success_hook: |
  output.status = 201
  output.payload = { first_name: person.response.payload.firstName }
`,
  python: `name: people.create
language: python
service_requests:
  - formula_variable: person
    system: echo
    field_mappings:
      - field: firstName
        value: input.payload.first_name.strip()
      - field: email
        value: input.payload.email
on_success_hook: |
  output.status = 201
  output.payload = {"first_name": person.response.payload.firstName}
`,
};

/**
 * `bass validate` of a project whose one definition has Python cells, against the same project in
 * JavaScript: whole processes, CPU time, taking turns. Python cells are checked by CPython today, which
 * validate loads for them.
 */
export async function measurePythonValidate({ runs = 5 } = {}) {
  const root = mkdtempSync(join(tmpdir(), "bass-bench-validate-python-"));
  try {
    const projects = Object.fromEntries(
      Object.entries(definitions).map(([language, text]) => {
        const dir = join(root, language);
        mkdirSync(join(dir, "integrations"), { recursive: true });
        writeFileSync(join(dir, "bass.config.yaml"), "systems:\n  echo:\n    adapter: echo\n");
        writeFileSync(join(dir, "integrations", "people.create.yaml"), text);
        return [language, dir];
      }),
    );
    const validate = (dir) => [process.execPath, bass, "validate", "--project", dir];
    for (const dir of Object.values(projects)) runCommand(validate(dir), root);
    const [python, javascript] = timeCommands([validate(projects.python), validate(projects.javascript)], {
      runs,
      cwd: root,
    });
    const ratio = pairRatios(python, javascript);
    return [
      {
        name: "validate, a Python definition",
        value: python.median,
        baseline: { ms: javascript.median, label: "the same in JavaScript (CPU)" },
        ratio,
        goal: { text: "at most 2×", max: 2, of: "ratio" },
        note: `bass validate of a project with one Python definition takes ${ratio.median.toFixed(2)}× the CPU of the same project in JavaScript (${python.median.toFixed(0)} vs ${javascript.median.toFixed(0)} ms, whole processes, spread ${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)}×, ${runs} pairs after a warm-up): CPython checks the Python cells`,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
