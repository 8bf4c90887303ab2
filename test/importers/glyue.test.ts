import { describe, expect, it } from "vitest";
import { convertGlyueExport, type GlyueImport } from "../../src/importers/glyue.js";
import { readGlyueExport } from "../../src/importers/glyue-export.js";
import { formatReportItem } from "../../src/importers/report.js";

/** A table of the export: its rows, by ids 1, 2, … */
function rows(...fields: Record<string, unknown>[]): { rows: Record<string, Record<string, unknown>> } {
  return { rows: Object.fromEntries(fields.map((row, index) => [String(index + 1), row])) };
}

const integration = rows({ path_name: "a" });

function convert(tables: Record<string, unknown>): GlyueImport {
  return convertGlyueExport(readGlyueExport({ integration, ...tables }, "export.json"), {
    source: "export.json",
  });
}

function reportOf(imported: GlyueImport): string[] {
  return imported.report.map(formatReportItem);
}

/** The first service request of the first definition, of one request on ECHO with these field mappings. */
function mappingsOf(...mappings: Record<string, unknown>[]) {
  const imported = convert({
    servicerequest: rows({ integration: 1, formula_variable: "x", system: "ECHO" }),
    fieldmapping: rows(
      ...mappings.map((mapping) => ({ servicerequest: 1, field: "f", value: "1", ...mapping })),
    ),
  });
  return { imported, mappings: imported.definitions[0]?.value.service_requests?.[0]?.field_mappings ?? [] };
}

describe("convertGlyueExport", () => {
  it.each([
    ["str", "string"],
    ["int", "integer"],
    ["float", "number"],
    ["decimal", "decimal"],
    ["Decimal", "decimal"],
    ["bool", "boolean"],
    ["dict", "object"],
    ["list", "array"],
    ["None", undefined],
    [null, undefined],
  ])("casts value_type %s to %s", (written, type) => {
    const { imported, mappings } = mappingsOf({ value_type: written });
    expect(mappings[0]?.value_type).toBe(type);
    expect(imported.report).toEqual([]);
  });

  it("reports a value_type bass has no cast for, and writes the mapping without it", () => {
    const { imported, mappings } = mappingsOf({ value_type: "datetime" });
    expect(mappings).toEqual([{ field: "f", value: "1" }]);
    expect(reportOf(imported)).toEqual([
      "fieldmapping 1 value_type: datetime is no type bass casts to (str, int, float, decimal, bool, dict, list); not carried over: the value stays as its cell gives it",
    ]);
  });

  it("carries message_substitution_name, which humanize gives, on requests, mappings and rules", () => {
    const imported = convert({
      servicerequest: rows({
        integration: 1,
        formula_variable: "x",
        system: "ECHO",
        message_substitution_name: "Screening",
      }),
      fieldmapping: rows({ servicerequest: 1, field: "f", value: "1", message_substitution_name: "First" }),
      validationrule: rows({
        integration: 1,
        type: "INPUT",
        field: "input.payload.email",
        rule: "_",
        message_substitution_name: "E-mail",
      }),
    });
    const definition = imported.definitions[0]?.value;
    expect(definition?.service_requests?.[0]?.message_substitution_name).toBe("Screening");
    expect(definition?.service_requests?.[0]?.field_mappings?.[0]?.message_substitution_name).toBe("First");
    expect(definition?.validation_rules?.[0]?.message_substitution_name).toBe("E-mail");
    expect(imported.report).toEqual([]);
  });

  it("maps an empty value to a null literal, and makes a cell's line ends \\n", () => {
    const { mappings } = mappingsOf({ value: "" }, { value: "a = 1\r\nretvalue = a\r\n" });
    expect(mappings).toEqual([
      { field: "f", literal: null },
      { field: "f", value: "a = 1\nretvalue = a\n" },
    ]);
  });

  it.each([
    ["a name of ECHO", "ECHO", undefined, { adapter: "echo" }],
    ["a name of MOCKCORE", "MOCKCORE", undefined, { adapter: "http", base_url: "mockcore:" }],
    ["any other name", "core-banking", undefined, { adapter: "http", base_url: "${env:CORE_BANKING_URL}" }],
    [
      "a row id, by its type",
      1,
      rows({ name: "Ledger", type: "MOCKCORE" }),
      { adapter: "http", base_url: "mockcore:" },
    ],
    [
      "a row id, with its url as the default",
      "1",
      rows({ name: "crm", type: "HTTP", base_url: "https://crm.example.com" }),
      { adapter: "http", base_url: "${env:CRM_URL:-https://crm.example.com}" },
    ],
  ])("makes the system of %s", (_, system, table, config) => {
    const imported = convert({
      servicerequest: rows({ integration: 1, formula_variable: "x", system }),
      ...(table ? { system: table } : {}),
    });
    const name = imported.definitions[0]?.value.service_requests?.[0]?.system ?? "";
    expect(imported.project.value.systems?.[name]).toEqual(config);
  });

  it("names a system bass's way, and leaves out a service request whose system id is not there", () => {
    const imported = convert({
      servicerequest: rows(
        { integration: 1, formula_variable: "x", system: "Core Banking" },
        { integration: 1, formula_variable: "y", system: 9 },
      ),
      system: rows({ name: "ECHO" }),
    });
    expect(imported.project.value.systems).toEqual({
      ECHO: { adapter: "echo" },
      Core_Banking: { adapter: "http", base_url: "${env:CORE_BANKING_URL}" },
    });
    expect(imported.definitions[0]?.value.service_requests).toEqual([
      { formula_variable: "x", system: "Core_Banking", abort_after_execute_request_failure: false },
    ]);
    expect(reportOf(imported)).toEqual([
      'servicerequest 1 system: the system "Core Banking" is named Core_Banking in bass (letters, digits, _ . - only)',
      "servicerequest 2 system: names no system of the export (9); the service request is not carried over",
    ]);
  });

  it("keeps credentials in a url out of the project file, and reports an adapter bass has not", () => {
    const imported = convert({
      system: rows({ name: "FIS", type: "CodeConnect", url: "https://user:pw@fis.example.com" }),
    });
    expect(imported.project.value.systems).toEqual({ FIS: { adapter: "http", base_url: "${env:FIS_URL}" } });
    expect(reportOf(imported)).toEqual([
      "system 1 type: bass has no CODECONNECT adapter: written as an http system at ${env:FIS_URL}, whose service requests need service_path and method field mappings",
      "system 1 url: holds a user name, a password or a }; not carried over (give credentials as ${env:…} headers)",
    ]);
    expect(JSON.stringify(imported)).not.toContain("pw@");
  });

  it("leaves out a sub-request, and the mask that names it, saying so", () => {
    const imported = convert({
      servicerequest: rows(
        { integration: 1, formula_variable: "parent", system: "ECHO" },
        { integration: 1, formula_variable: "child", system: "ECHO", parent_servicerequest: 1 },
      ),
      fieldmapping: rows({ servicerequest: 2, field: "f", value: "1" }),
      mask: rows({ servicerequest: 2, type: "Response", field: "secret" }),
    });
    expect(
      imported.definitions[0]?.value.service_requests?.map((request) => request.formula_variable),
    ).toEqual(["parent"]);
    expect(imported.definitions[0]?.value.masks).toBeUndefined();
    expect(reportOf(imported)).toEqual([
      "servicerequest 2 parent_servicerequest: a sub-request of service request 1: bass has no sub-requests; not carried over, nor its field mapping",
      "mask 1 servicerequest: service request 2 is not in this integration's definition; the mask is not carried over",
    ]);
  });

  it("upper-cases a mask's type and reads abort_if_not_applied_x_times as a number", () => {
    const imported = convert({
      mask: rows(
        { integration: 1, type: "Input", field: "a", abort_if_not_applied_x_times: "2" },
        { integration: 1, type: "Input", field: "b", abort_if_not_applied_x_times: "twice" },
        { integration: 1, type: "REQUEST", field: "c" },
      ),
    });
    expect(imported.definitions[0]?.value.masks).toEqual([
      { type: "INPUT", field: "a", abort_if_not_applied_x_times: 2 },
      { type: "INPUT", field: "b" },
    ]);
    expect(reportOf(imported)).toEqual([
      'mask 2 abort_if_not_applied_x_times: is not a number ("twice"); not carried over',
      "mask 3 type: REQUEST is none of INPUT, RESPONSE; the mask is not carried over",
    ]);
  });

  it("renames a path_name bass does not take, and leaves out a second integration of one name", () => {
    const imported = convertGlyueExport(
      readGlyueExport(
        {
          integration: rows({ path_name: "Loan Origination/v2" }, { path_name: "loan-origination-v2" }),
          servicerequest: rows({ integration: 2, formula_variable: "x", system: "ECHO" }),
        },
        "export.json",
      ),
      { source: "export.json" },
    );
    expect(imported.definitions.map((file) => file.path)).toEqual(["integrations/Loan-Origination-v2.yaml"]);
    expect(imported.definitions[0]?.value.endpoints).toEqual([
      { method: "POST", path: "/integrations/execute/Loan-Origination-v2" },
    ]);
    expect(reportOf(imported)).toEqual([
      "integration 1 path_name: is named Loan-Origination-v2 in bass (letters, digits, . _ - only)",
      "integration 2 path_name: another integration is named loan-origination-v2 already; not carried over, nor its 1 service request",
    ]);
  });

  it("writes a mapping to true or a number as text, saying so", () => {
    const imported = convert({
      valuemappingset: rows({
        integration: 1,
        name: "flags",
        use_default_to_value: true,
        default_to_value: false,
      }),
      valuemapping: rows({ valuemappingset: 1, from_value: "Y", to_value: true }),
    });
    expect(imported.definitions[0]?.value.value_mapping_sets).toEqual([
      { name: "flags", default_to_value: "false", mappings: [{ from: "Y", to: "true" }] },
    ]);
    expect(reportOf(imported)).toEqual([
      'valuemappingset 1 default_to_value: is false, and bass maps to text: written as "false"',
      'valuemapping 1 to_value: is true, and bass maps to text: written as "true"',
    ]);
  });

  it("reports rows that belong to nothing and links to rows that are not there", () => {
    const imported = convert({
      servicerequest: rows(
        { formula_variable: "x", system: "ECHO" },
        { integration: 7, formula_variable: "y" },
      ),
      validationrule: rows({ type: "INPUT", field: "1", rule: "True" }),
      valuemappingset: rows({ name: "unused" }),
      fieldmaping: rows({}),
    });
    expect(imported.definitions[0]?.value.service_requests).toBeUndefined();
    expect(reportOf(imported)).toEqual([
      "fieldmaping: not a table bass reads (did you mean fieldmapping?); not carried over",
      "servicerequest 1: belongs to no integration; not carried over",
      "servicerequest 2 integration: no integration 7 in the export; not carried over",
      "validationrule 1: belongs to no integration or servicerequest; not carried over",
      "valuemappingset 1: belongs to no integration and no field mapping uses it; not carried over",
    ]);
  });

  it("takes swagger_request written as JSON text", () => {
    const imported = convertGlyueExport(
      readGlyueExport(
        { integration: rows({ path_name: "a", swagger_request: '{"type": "object"}' }) },
        "export.json",
      ),
      { source: "export.json" },
    );
    expect(imported.definitions[0]?.value.request_schema).toEqual({ type: "object" });
  });
});
