/**
 * Definition coverage: which cells, service requests, field mappings, rules and masks of a definition
 * the runs reached, and which way each condition went. `bass test --coverage` reports it (src/coverage).
 */

/** A place of a definition that coverage counts. */
export interface CoverageSite {
  /** Where in the definition, as errors name it: `service_requests[0].call_if`. */
  key: string;
  /** The line of its key in the definition file. */
  line: number;
  kind: "cell" | "request" | "mapping" | "rule" | "mask";
  /**
   * A condition taken each way: an `…_if` true or false, a `call_for_each` with some items or none, a
   * rule passing or failing.
   */
  branch?: "condition" | "each" | "rule" | undefined;
}

/** By integration, then by site key: how often the site was reached, and a branch how often each way. */
export type CoverageHits = Record<string, Record<string, [reached: number, yes: number, no: number]>>;

/** Where a run's engine counts what it reaches. */
export interface CoverageRecorder {
  readonly hits: CoverageHits;
  reached(integration: string, site: CoverageSite | undefined): void;
  /** A branch taken: `yes` true for the first way (true, some items, passed). */
  took(integration: string, site: CoverageSite | undefined, yes: boolean): void;
}

export function createCoverageRecorder(): CoverageRecorder {
  const hits: CoverageHits = {};
  const counts = (integration: string, site: CoverageSite) => countsOf(hits, integration, site.key);
  return {
    hits,
    reached(integration, site) {
      if (site) counts(integration, site)[0]++;
    },
    took(integration, site, yes) {
      if (site) counts(integration, site)[yes ? 1 : 2]++;
    },
  };
}

/** Adds the hits of `from` (another thread's, another run's) to `into`. */
export function addHits(into: CoverageHits, from: CoverageHits): void {
  for (const [integration, sites] of Object.entries(from)) {
    for (const [key, [reached, yes, no]] of Object.entries(sites)) {
      const counts = countsOf(into, integration, key);
      counts[0] += reached;
      counts[1] += yes;
      counts[2] += no;
    }
  }
}

/** The counts of one site of one integration, made at 0 on first use. */
function countsOf(hits: CoverageHits, integration: string, key: string): [number, number, number] {
  hits[integration] ??= {};
  const sites = hits[integration];
  sites[key] ??= [0, 0, 0];
  return sites[key];
}
