import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir, repoRoot, runCli } from "../_helpers.js";

describe("bass init", () => {
  it("makes a project that validates, runs and passes its test, and prints what to do next", async () => {
    const parent = createTempDir();
    const made = await runCli(["init", "shop"], { cwd: parent });
    expect(made.code).toBe(0);
    // No project there has bass installed: the steps install this one first.
    expect(made.stdout).toBe(
      [
        "made a bass project in shop (5 files). Next:",
        "  cd shop",
        `  npm install --save-dev ${relative(join(parent, "shop"), repoRoot)}`,
        "  npx bass validate",
        "  npx bass run customers.retrieve --input inputs/customers.retrieve.json --input-envelope",
        "  npx bass test",
        "",
      ].join("\n"),
    );
    const dir = join(parent, "shop");
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe(".bass/\n");
    // The $schema comment names the schemas where the install of the first steps puts them, never a path
    // into wherever this bass runs from; once bass is installed there, it resolves.
    const first =
      readFileSync(join(dir, "integrations/customers.retrieve.yaml"), "utf8").split("\n", 1)[0] ?? "";
    const schema = /\$schema=(\S+)$/.exec(first)?.[1] ?? "";
    expect(schema).toBe("../node_modules/bass/schema/definition.schema.json");
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(repoRoot, join(dir, "node_modules", "bass"));
    expect(existsSync(resolve(dir, "integrations", schema))).toBe(true);

    expect((await runCli(["validate"], { cwd: dir })).code).toBe(0);
    const run = await runCli(
      [
        "run",
        "customers.retrieve",
        "--input",
        "inputs/customers.retrieve.json",
        "--input-envelope",
        "--json",
      ],
      { cwd: dir },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).output.payload).toMatchObject({
      customer_id: "P000001",
      name: "Ada Lovelace",
    });
    const test = await runCli(["test"], { cwd: dir });
    expect(test.code).toBe(0);
    expect(test.stdout).toMatch(/2 passed, 0 failed/);
  });

  it("writes over no file: it refuses, names them, and changes nothing", async () => {
    const dir = createTempDir({ "bass.config.yaml": "# mine\n" });
    const refused = await runCli(["init"], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("these are there already: bass.config.yaml");
    expect(readFileSync(join(dir, "bass.config.yaml"), "utf8")).toBe("# mine\n");
    expect(existsSync(join(dir, "integrations"))).toBe(false);
  });

  it("adds .bass/ to a .gitignore that is there, once", async () => {
    const dir = createTempDir({ ".gitignore": "node_modules/" });
    expect((await runCli(["init"], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toBe("node_modules/\n.bass/\n");
  });

  it("copies the samples with --template samples, and their suite passes", async () => {
    const dir = createTempDir();
    const made = await runCli(["init", "--template", "samples"], { cwd: dir });
    expect(made.code).toBe(0);
    expect(made.stdout).toContain("  npx bass run customers.create --input inputs/customers.create.json\n");
    const list = await runCli(["list", "--json"], { cwd: dir });
    expect(JSON.parse(list.stdout).map((item: { name: string }) => item.name)).toEqual([
      "customers.create",
      "customers.retrieve",
      "deposit-accounts.create",
      "monetary-internal-transfers.create",
      "monetary-transactions.retrieve",
      "onboarding.create",
    ]);
    const test = await runCli(["test"], { cwd: dir });
    expect(test.code).toBe(0);
    expect(test.stdout).toMatch(/59 passed, 0 failed/);
  });
});

describe("bass list", () => {
  it("prints each integration with its endpoints, systems and file, a broken one marked", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems:\n  core:\n    adapter: echo\n",
      "integrations/b.yaml":
        "name: b\nendpoints:\n  - { method: GET, path: /b }\nservice_requests:\n  - { formula_variable: c, system: core }\n",
      "integrations/a.yaml": "name: a\nservice_requests:\n  - { formula_variable: x, system: nope }\n",
    });
    writeFileSync(join(dir, "integrations/c.yaml"), "name: c\nactive: false\n");
    const list = await runCli(["list"], { cwd: dir });
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(
      [
        "INTEGRATION   ENDPOINTS  SYSTEMS  FILE",
        "a (broken)    -          nope     integrations/a.yaml",
        "b             GET /b     core     integrations/b.yaml",
        "c (inactive)  -          -        integrations/c.yaml",
        "",
      ].join("\n"),
    );
  });
});

describe("the commands bass prints", () => {
  it("after init, run the bass a project there has installed, with no step to install it", async () => {
    const dir = createTempDir({ "node_modules/bass/package.json": '{ "name": "bass" }' });
    const made = await runCli(["init", "p"], { cwd: dir });
    expect(made.stdout.split("\n").slice(1, 3)).toEqual(["  cd p", "  bass validate"]);
  });

  it("are written as npx bass when npx ran it", async () => {
    const dir = createTempDir();
    const made = await runCli(["init", "p"], { cwd: dir, env: { npm_command: "exec", NO_COLOR: "1" } });
    expect(made.stdout).toContain("  npx bass validate\n");
    const wrong = await runCli(["run", "--nope"], { cwd: dir, env: { npm_command: "exec" } });
    expect(wrong.stderr).toContain("(npx bass run --help lists its options)");
  });
});
