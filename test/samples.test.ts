import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { lintProject } from "../src/definition/lint/lint.js";
import { loadProject } from "../src/definition/load.js";

const samples = join(import.meta.dirname, "..", "samples");
const project = loadProject({ cwd: samples, env: {} });
const names = [
  "customers.retrieve",
  "monetary-transactions.retrieve",
  "customers.create",
  "deposit-accounts.create",
  "monetary-internal-transfers.create",
];
const filesIn = (folder: string) => readdirSync(join(samples, folder)).sort();

describe("samples/", () => {
  it("holds the five integrations of SPEC §10", () => {
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

  it.each(names)("has an input and a mock for %s that answer each of its service requests", (name) => {
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
