import { readFileSync } from "node:fs";
import { stringify } from "yaml";

/** A definition file with one POST endpoint named after the integration, for the hostile serve tests. */
export function integration(
  name: string,
  cells: Record<string, string>,
  language?: "python",
): [string, string] {
  return [
    `integrations/${name}.yaml`,
    stringify({
      name,
      ...(language && { language }),
      endpoints: [{ method: "POST", path: `/${name}` }],
      ...cells,
    }),
  ];
}

/** Resident memory of a process, in MB. */
export function residentMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(line) / 1024;
}
