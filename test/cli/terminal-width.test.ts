import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { everyCommand } from "../_commands.js";
import { createTempDir, runCli } from "../_helpers.js";

const because =
  "the core keeps one customer per tax id, and this tax id already belongs to a customer opened at another branch";
const project = {
  "bass.config.yaml": "systems:\n  core:\n    adapter: http\n    base_url: http://127.0.0.1:9\n",
  "integrations/wide.yaml": `name: wide.check
endpoints: [{ method: POST, path: /api/wide/checks }]
validation_rules:
  - type: INPUT
    field: input.payload.email
    rule: _ === undefined || _.includes('@')
    message: the e-mail address must hold an @, as every address the bank writes to does, and this one has none
service_requests:
  - formula_variable: core
    system: core
    service_name: open
    field_mappings:
      - { field: service_path, literal: /core/v1/customers/with/a/rather/long/path/for/the/preview }
      - { field: method, literal: POST }
      - { field: body, value: input.payload }
`,
  "mocks/refused.json": JSON.stringify({
    core: { success: false, status: 409, payload: { reason: because }, messages: ["409 Conflict", because] },
  }),
};
const longInput = {
  note: "a note long enough that no terminal shows it on one line with the rest of the tree",
};

/** The lines of the run tree: what `bass run` prints before the answer. */
function treeLines(stdout: string): string[] {
  return stdout.slice(0, stdout.indexOf("\noutput ")).split("\n");
}

describe.each([80, 140])("at %i columns", (columns) => {
  it("fits a failed run's tree to the terminal, with why it failed whole", async () => {
    const dir = createTempDir(project);
    writeFileSync(join(dir, "input.json"), JSON.stringify({ ...longInput, email: "nobody-at-example" }));
    const invalid = await runCli(["run", "wide.check", "--input", "input.json"], { cwd: dir, columns });
    writeFileSync(join(dir, "input.json"), JSON.stringify(longInput));
    const refused = await runCli(
      ["run", "wide.check", "--input", "input.json", "--mock", "mocks/refused.json"],
      {
        cwd: dir,
        columns,
      },
    );
    for (const [result, message] of [
      [invalid, "the e-mail address must hold an @"],
      [refused, because],
    ] as const) {
      expect(result.code).toBe(1);
      const lines = treeLines(result.stdout);
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(columns);
      // Cut previews end in …; the message, wrapped under its item, is all there.
      expect(lines.some((line) => line.endsWith("…"))).toBe(true);
      const wrapped = lines.filter((line) => line.startsWith("│ ")).map((line) => line.slice(1).trim());
      expect(wrapped.join(" ")).toContain(message);
    }
    const id = /^(\w{26}) /.exec(refused.stdout)?.[1] as string;
    const shown = await runCli(["history", "show", id], { cwd: dir, columns });
    expect(shown.stdout.split("\n").every((line) => [...line].length <= columns)).toBe(true);
    expect(shown.stdout).toContain("409 Conflict;");
  });

  it("wraps every command's help to the terminal", async () => {
    const dir = createTempDir();
    for (const command of everyCommand) {
      // Run through npx, the examples say `npx bass`: the longer of the two.
      const env = { NO_COLOR: "1", npm_command: "exec" };
      const { stdout } = await runCli([...command, "--help"], { cwd: dir, env, columns });
      for (const line of stdout.trimEnd().split("\n"))
        expect([...line].length, `bass ${command.join(" ")} --help: ${line}`).toBeLessThanOrEqual(columns);
    }
  });
});
