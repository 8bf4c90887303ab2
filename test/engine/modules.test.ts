import { describe, expect, it } from "vitest";
import { createTempDir, runCli } from "../_helpers.js";

const helpers = `// Shared by every integration that formats names.
const titled = (word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()
exports.fullName = (first, last) => titled(first) + ' ' + titled(last)
exports.spin = () => { for (;;) {} }
exports.limits = { daily: 500 }
`;

/** A project whose `modules:` name `helpers.js`, and one integration `use` whose hook is `hook`. */
function project(hook: string, extra: Record<string, string> = {}) {
  return createTempDir({
    "bass.config.yaml": "systems: {}\nmodules:\n  helpers: lib/helpers.js\nlimits:\n  cell_timeout_ms: 300\n",
    "lib/helpers.js": helpers,
    "integrations/use.yaml": `name: use\non_success_hook: ${JSON.stringify(hook)}\n`,
    ...extra,
  });
}

async function run(dir: string) {
  const result = await runCli(["run", "use", "--json"], { cwd: dir });
  return JSON.parse(result.stdout) as {
    status: string;
    output: { payload: unknown };
    history: { items: { kind: string; error?: { code: string; message: string } }[] };
  };
}

describe("import_module", () => {
  it("gives a cell a shared module's exports", async () => {
    const printed = await run(
      project("output.payload = { name: import_module('helpers').fullName('ada', 'LOVELACE') }"),
    );
    expect(printed.output.payload).toEqual({ name: "Ada Lovelace" });
  });

  it("freezes what a module exports, so no run leaves state in it for another", async () => {
    const printed = await run(project("import_module('helpers').limits.daily = 0"));
    const failure = printed.history.items.find((item) => item.kind === "FAILURE");
    expect(failure?.error?.message).toMatch(/read only|not extensible|Cannot assign/);
  });

  it("keeps the calling cell's time limit in a module's function", async () => {
    const printed = await run(project("import_module('helpers').spin()"));
    const failure = printed.history.items.find((item) => item.kind === "FAILURE");
    expect(failure?.error?.code).toBe("cell_timeout");
  });

  it("gives a module no require, and says which module is unknown", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\nmodules:\n  helpers: lib/helpers.js\n  bad: lib/bad.js\n",
      "lib/helpers.js": helpers,
      "lib/bad.js": "const fs = require('node:fs')\n",
      "integrations/use.yaml":
        "name: use\non_success_hook: |\n  let named = ''\n  try { import_module(['help', 'ers-x'].join('')) } catch (error) { named = error.message }\n  keep({ named })\n  import_module('bad')\nfinally_hook: \"output.payload = { named }\"\n",
    });
    const printed = await run(dir);
    const failure = printed.history.items.find((item) => item.kind === "FAILURE");
    expect(failure?.error?.message).toContain("require is not defined");
    expect(printed.output.payload).toEqual({
      named: 'import_module: no module "helpers-x" in the project file\'s modules; known: "helpers", "bad"',
    });
  });

  it("is found unknown by validate, with the known names", async () => {
    const dir = project("import_module('helpres')");
    const found = await runCli(["validate", "--format", "json"], { cwd: dir });
    expect(JSON.parse(found.stdout).findings).toEqual([
      expect.objectContaining({
        rule: "unknown-module",
        message: 'on_success_hook: the project file has no module "helpres"; known: "helpers"',
      }),
    ]);
  });
});
