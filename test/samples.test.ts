import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { lintProject } from "../src/definition/lint/lint.js";
import { loadProject } from "../src/definition/load.js";
import { copySamples, createTempDir, runCli } from "./_helpers.js";

const samples = join(import.meta.dirname, "..", "samples");
const project = loadProject({ cwd: samples, env: {} });
const names = [
  "customers.retrieve",
  "monetary-transactions.retrieve",
  "customers.create",
  "deposit-accounts.create",
  "monetary-internal-transfers.create",
  "onboarding.create",
];
// Onboarding calls no system itself: its children do, each run of its own, so it has no mock file.
const mocked = names.filter((name) => name !== "onboarding.create");
const filesIn = (folder: string) => readdirSync(join(samples, folder)).sort();

describe("samples/", () => {
  it("holds the six sample integrations", () => {
    expect(project.definitions.map((definition) => definition.value.name).sort()).toEqual([...names].sort());
  });

  it("validates without a single finding", () => {
    expect(lintProject(project)).toEqual([]);
  });

  it("points every YAML file at the published schema", () => {
    const yamlFiles = [
      join(samples, "bass.config.yaml"),
      ...filesIn("integrations").map((file) => join(samples, "integrations", file)),
    ];
    for (const file of yamlFiles) {
      const schema = basename(file) === "bass.config.yaml" ? "../schema/project" : "../../schema/definition";
      expect(readFileSync(file, "utf8").split("\n")[0]).toBe(
        `# yaml-language-server: $schema=${schema}.schema.json`,
      );
    }
  });

  it.each(mocked)("has an input and a mock for %s that answer each of its service requests", (name) => {
    expect(filesIn("inputs")).toContain(`${name}.json`);
    expect(() => JSON.parse(readFileSync(join(samples, "inputs", `${name}.json`), "utf8"))).not.toThrow();
    const mock = parse(readFileSync(join(samples, "mocks", `${name}.yaml`), "utf8")) as Record<
      string,
      { success: boolean }
    >;
    const definition = project.definitions.find((loaded) => loaded.value.name === name)?.value;
    const formulaVariables = (definition?.service_requests ?? []).map((request) => request.formula_variable);
    expect(Object.keys(mock).sort()).toEqual(formulaVariables.sort());
    for (const answer of Object.values(mock)) expect(answer.success).toBe(true);
  });
});

describe("bass run on the samples with their mock files", () => {
  const expected: Record<string, { status: number; fields: Record<string, unknown> }> = {
    "customers.retrieve": {
      status: 200,
      fields: { customer_id: "P000001", status: "active", tax_id_last4: "3333" },
    },
    "monetary-transactions.retrieve": { status: 200, fields: { account_number: "1000000001", total: 3 } },
    "customers.create": { status: 201, fields: { customer_id: "P000042", status: "active" } },
    "deposit-accounts.create": {
      status: 201,
      fields: { account_number: "1000000042", product_type: "savings" },
    },
    "monetary-internal-transfers.create": { status: 201, fields: { status: "posted", amount: "150.00" } },
  };

  it.each(mocked)("runs %s to its documented answer", async (name) => {
    // A copy, so that the runs' history does not land in the repository's samples/.
    const dir = createTempDir();
    copySamples(dir);
    const envelope = name.endsWith(".retrieve") ? ["--input-envelope"] : [];
    const result = await runCli(
      [
        "run",
        name,
        "--project",
        dir,
        ...envelope,
        "--input",
        `inputs/${name}.json`,
        "--mock",
        `mocks/${name}.yaml`,
        "--json",
      ],
      { cwd: dir },
    );
    expect(result.stderr).toBe("");
    const { status, output } = JSON.parse(result.stdout);
    expect(status).toBe("success");
    expect(output.status).toBe(expected[name]?.status);
    expect(output.payload).toMatchObject(expected[name]?.fields ?? {});
    expect(result.code).toBe(0);
  });
});
