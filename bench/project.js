import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const samples = fileURLToPath(new URL("../samples/", import.meta.url));

/** One in this many definitions is generated from scratch instead of derived from a sample. */
const GENERATED_EVERY = 10;

/**
 * Writes a project of `count` definitions into `dir`: the sample project file, copies of the sample
 * definitions under new names and endpoint paths, and every tenth one generated with several service
 * requests, field mappings, rules and masks. Every definition is meant to validate clean. Returns the
 * bytes written to definition files.
 */
export function createBenchProject(dir, count) {
  const integrations = join(dir, "integrations");
  mkdirSync(integrations, { recursive: true });
  copyFileSync(join(samples, "bass.config.yaml"), join(dir, "bass.config.yaml"));
  const sampleDir = join(samples, "integrations");
  const sources = readdirSync(sampleDir)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .map((file) => readFileSync(join(sampleDir, file), "utf8"));
  let derived = 0;
  let bytes = 0;
  for (let index = 0; index < count; index++) {
    const generated = index % GENERATED_EVERY === GENERATED_EVERY - 1;
    // Each sample once as it is, so that the integrations a sample calls by name are there.
    const text = generated
      ? createDefinition(index)
      : derived < sources.length
        ? sources[derived++]
        : renameDefinition(sources[derived++ % sources.length], index);
    const name = /^name: (\S+)$/m.exec(text)?.[1];
    writeFileSync(join(integrations, `${name}.yaml`), text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

/** A sample definition with a name and endpoint paths of its own, comments and all. */
function renameDefinition(text, index) {
  return text
    .replace(/^name: (\S+)$/m, (_, name) => `name: ${name}.n${index}`)
    .replace(/^(\s+path: )(\S+)$/gm, (_, key, path) => `${key}${path}/n${index}`);
}

/** A definition of 2 to 5 service requests with mappings, rules and masks; its size varies with `index`. */
function createDefinition(index) {
  const requests = 2 + (index % 4);
  const fields = 3 + (index % 5);
  const lines = [
    `name: generated.g${index}`,
    `description: Generated bench definition ${index}`,
    "endpoints:",
    "  - method: POST",
    `    path: /api/v1/generated/g${index}/{id}`,
    "value_mapping_sets:",
    "  - name: status",
    "    default_to_value: unknown",
    "    mappings:",
    "      - { from: 1, to: active }",
    "      - { from: 2, to: inactive }",
    "masks:",
  ];
  for (let field = 0; field < fields; field++) {
    lines.push("  - type: INPUT", `    sequence: ${field * 10}`, `    field: secret_${field}`);
  }
  lines.push(
    "  - type: RESPONSE",
    "    service_request: sr0",
    "    field: items[*].account",
    "validation_rules:",
  );
  for (let field = 0; field < fields; field++) {
    lines.push(
      "  - type: INPUT",
      `    sequence: ${field * 10}`,
      `    field: input.payload.field_${field}`,
      "    rule: typeof _ === 'string' && _.trim() !== ''",
      `    message: field_${field} is required`,
    );
  }
  lines.push(
    "  - type: RESPONSE",
    "    service_request: sr0",
    "    field: sr0.response.payload.items",
    "    rule: Array.isArray(_)",
    "service_requests:",
  );
  for (let request = 0; request < requests; request++) {
    lines.push(
      `  - formula_variable: sr${request}`,
      `    sequence: ${request * 10}`,
      "    system: core",
      `    service_name: step-${request}`,
      ...(request > 0 ? [`    call_if: sr${request - 1}.response.success`] : []),
      "    field_mappings:",
      "      - field: service_path",
      `        value: "\`/core/v1/generated/\${encodeURIComponent(input.path.id)}/${request}\`"`,
      "      - field: method",
      "        literal: POST",
    );
    for (let field = 0; field < fields; field++) {
      lines.push(
        `      - field: body.field${field}`,
        `        value: input.payload.field_${field}.trim()`,
        "        value_type: string",
      );
    }
    lines.push(
      "      - field: body.items[fidx].code",
      "        include_for_each: input.payload.items ?? []",
      "        value: fitem.code",
      "        value_mapping_set: status",
    );
  }
  lines.push(
    "on_success_hook: |",
    `  const last = sr${requests - 1}.response.payload`,
    "  output.status = 201",
    "  output.payload = { id: last.id, status: map_value('status', last.statusCode) }",
    "",
  );
  return lines.join("\n");
}
