import type { SystemConfig, VaultConfig } from "../definition/types.js";
import { isObject } from "../objects.js";
import { about, type GlyueRow, isEmpty, notesOf, readText } from "./glyue-export.js";
import { reportLeftFields } from "./glyue-fields.js";
import type { ImportReportItem } from "./report.js";
import type { YamlNote } from "./yaml-document.js";

/** The systems of the project file, made as the export's service requests name them. */
export interface GlyueSystems {
  config: Record<string, SystemConfig>;
  notes: YamlNote[];
  /**
   * The project's name of the system a service request's `system` holds: a system's name, or the id of a
   * row of the system table. Undefined when it is empty, or an id the table does not have.
   */
  nameOf(request: GlyueRow): string | undefined;
}

/** Every row of the system table as a system, and the systems service requests name later. */
export function createSystems(rows: readonly GlyueRow[], report: ImportReportItem[]): GlyueSystems {
  const config: Record<string, SystemConfig> = {};
  const notes: YamlNote[] = [];
  const byId = new Map<string, string>();
  // A system named by a row of the system table, or only by a service request (`at`, its system field).
  const add = (name: string, at: GlyueRow, systemRow?: GlyueRow): string => {
    const key = name.replace(/[^A-Za-z0-9_.-]+/g, "_");
    if (config[key] !== undefined) return key;
    if (key !== name) {
      const message = `the system ${JSON.stringify(name)} is named ${key} in bass (letters, digits, _ . - only)`;
      report.push(about(at, systemRow ? "name" : "system", message));
    }
    config[key] = systemRow ? systemOfRow(systemRow, key, report) : systemConfig(key, key.toUpperCase());
    return key;
  };
  for (const row of rows) {
    const name = readText(row, "name", report);
    if (name === undefined) {
      report.push(about(row, "name", "a system without a name; not carried over"));
      continue;
    }
    const key = add(name, row, row);
    byId.set(row.id, key);
    const text = notesOf(row);
    if (text !== undefined) notes.push({ at: ["systems", key], text });
    reportLeftFields(row, report);
  }
  const nameOf = (request: GlyueRow): string | undefined => {
    const value = request.fields.system;
    if (typeof value === "number" || typeof value === "string") {
      const known = byId.get(String(value));
      if (known !== undefined) return known;
    }
    return typeof value === "string" && value.trim() !== "" ? add(value.trim(), request) : undefined;
  };
  return { config, notes, nameOf };
}

/** A row of the system table as a system: ECHO and MOCKCORE by its type (else its name), else http. */
function systemOfRow(row: GlyueRow, key: string, report: ImportReportItem[]): SystemConfig {
  const type = readText(row, "type", report)?.trim().toUpperCase();
  const kind = type ?? key.toUpperCase();
  const urlField = isEmpty(row.fields.url) ? "base_url" : "url";
  const url = readText(row, urlField, report);
  if (kind === "ECHO" || kind === "MOCKCORE") {
    const adapter = kind === "ECHO" ? "bass's echo adapter" : "bass's embedded mock core";
    if (url !== undefined) report.push(about(row, urlField, `${adapter} needs no url; not carried over`));
    return systemConfig(key, kind);
  }
  if (type !== undefined && type !== "HTTP") {
    const at = baseUrl(key, undefined);
    report.push(
      about(
        row,
        "type",
        `bass has no ${type} adapter: written as an http system at ${at}, whose service requests need service_path and method field mappings`,
      ),
    );
  }
  if (url === undefined || isPlainUrl(url)) return systemConfig(key, kind, url);
  report.push(
    about(
      row,
      urlField,
      "holds a user name, a password or a }; not carried over (give credentials as ${env:…} headers)",
    ),
  );
  return systemConfig(key, kind);
}

/** The system bass makes of a platform system of this kind; `url` is the default of its base_url. */
function systemConfig(key: string, kind: string, url?: string): SystemConfig {
  if (kind === "ECHO") return { adapter: "echo" };
  if (kind === "MOCKCORE") return { adapter: "http", base_url: "mockcore:" };
  return { adapter: "http", base_url: baseUrl(key, url) };
}

/** `${env:CORE_URL}`: the system's name upper-cased, `_` for what is not a letter or digit; `url` its default. */
function baseUrl(key: string, url: string | undefined): string {
  const variable = `${/^[0-9]/.test(key) ? "_" : ""}${key.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_URL`;
  return url === undefined ? `\${env:${variable}}` : `\${env:${variable}:-${url}}`;
}

/** Whether a url can be written in the project file: no credentials, and no } to end `${env:…:-url}`. */
function isPlainUrl(url: string): boolean {
  if (url.includes("}")) return false;
  try {
    const parsed = new URL(url);
    return parsed.username === "" && parsed.password === "";
  } catch {
    return true;
  }
}

/** The vault table as the project file's vault seeds: items only, each secret reported by its key. */
export function createVaults(
  rows: readonly GlyueRow[],
  report: ImportReportItem[],
): { vaults: Record<string, VaultConfig>; notes: YamlNote[] } {
  const vaults: Record<string, VaultConfig> = {};
  const notes: YamlNote[] = [];
  for (const row of rows) {
    const name = readText(row, "name", report);
    if (name === undefined || !/^[A-Za-z0-9_.-]{1,100}$/.test(name)) {
      const why =
        name === undefined
          ? "a vault without a name"
          : `the vault name ${JSON.stringify(name)} is not one bass takes (letters, digits, _ . -)`;
      report.push(about(row, "name", `${why}; not carried over`));
      continue;
    }
    const { items, secrets } = row.fields;
    if (isObject(items)) vaults[name] = { items };
    else {
      vaults[name] = {};
      if (!isEmpty(items))
        report.push(about(row, "items", "is not an object of items by key; not carried over"));
    }
    if (!isEmpty(secrets)) report.push(about(row, "secrets", secretsLeft(name, secrets)));
    const text = notesOf(row);
    if (text !== undefined) notes.push({ at: ["vaults", name], text });
    reportLeftFields(row, report);
  }
  return { vaults, notes };
}

/** What the report says of a vault's secrets: their keys and how to set them, never their values. */
function secretsLeft(vault: string, secrets: unknown): string {
  const keys = isObject(secrets) ? Object.keys(secrets) : [];
  const [only] = keys;
  const which =
    keys.length === 0
      ? "its secrets are"
      : `${keys.length === 1 ? "a secret" : `${keys.length} secrets`} (${keys.join(", ")})`;
  const how =
    only !== undefined && keys.length === 1
      ? `set it with bass vault set ${vault} ${only} - --secret`
      : `set each with bass vault set ${vault} KEY - --secret`;
  return `${which} not carried over: bass writes no secret into a file; ${how}`;
}
