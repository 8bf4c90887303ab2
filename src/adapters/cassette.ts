import { escapeRegExp } from "../escape-regexp.js";
import type { Adapter, AdapterRequest, AdapterResolver, AdapterResponse } from "./adapter.js";

/** One adapter exchange of a run, as `--record` keeps it and `--replay` answers it. */
export interface Exchange {
  formula_variable: string;
  sridx: number | null;
  system: string;
  request: AdapterRequest;
  response: AdapterResponse;
}

/** A recording of a run's adapter exchanges (docs/behaviour.md#bass-run `--record`), masked before it is written. */
export interface Cassette {
  integration: string;
  recorded_at: string;
  exchanges: Exchange[];
}

/** Wraps adapters so that every exchange they make is kept, in order. */
export function createRecorder(resolve: AdapterResolver): {
  resolve: AdapterResolver;
  exchanges: Exchange[];
} {
  const exchanges: Exchange[] = [];
  const recording = (system: string): Adapter => {
    const adapter = resolve(system);
    return {
      async execute(request, context) {
        const response = await adapter.execute(request, context);
        exchanges.push({
          formula_variable: context.formulaVariable,
          sridx: context.sridx,
          system,
          request: structuredClone(request),
          response: structuredClone(response),
        });
        return response;
      },
    };
  };
  return { resolve: recording, exchanges };
}

/** What a masked recording hides: a masked part of a recorded value matches anything when replayed. */
const maskText = "XXXXXXXXXXXX";

/**
 * Answers service calls from a cassette, in order: the first unused exchange of the same formula variable
 * and sridx whose method and service path match. A call the cassette does not hold fails with a message.
 */
export function createReplayAdapter(cassette: Cassette, source: string): Adapter {
  const used = new Set<Exchange>();
  return {
    async execute(request, { formulaVariable, sridx }) {
      const exchange = cassette.exchanges.find(
        (candidate) =>
          !used.has(candidate) &&
          candidate.formula_variable === formulaVariable &&
          candidate.sridx === sridx &&
          sameRoute(candidate.request.payload, request.payload),
      );
      if (!exchange) {
        const which = sridx === null ? formulaVariable : `${formulaVariable}[${sridx}]`;
        throw new Error(
          `${source} holds no exchange for service request "${which}" (${describeRoute(request.payload)})`,
        );
      }
      used.add(exchange);
      return structuredClone(exchange.response);
    },
  };
}

/** Checks the shape of a parsed cassette; says what is wrong, or undefined when it is usable. */
export function checkCassette(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || !Array.isArray((value as Cassette).exchanges)) {
    return "a cassette is { integration, recorded_at, exchanges: [...] }, as bass run --record writes it";
  }
  for (const [index, exchange] of (value as Cassette).exchanges.entries()) {
    const ok =
      exchange !== null &&
      typeof exchange === "object" &&
      typeof exchange.formula_variable === "string" &&
      (exchange.sridx === null || Number.isInteger(exchange.sridx)) &&
      typeof exchange.response?.success === "boolean";
    if (!ok) return `exchanges[${index}] needs formula_variable, sridx, request and response { success, … }`;
  }
  return undefined;
}

function routeOf(payload: unknown): { method: unknown; path: unknown } {
  const fields = payload !== null && typeof payload === "object" ? (payload as Record<string, unknown>) : {};
  return { method: fields.method, path: fields.service_path };
}

function sameRoute(recorded: unknown, live: unknown): boolean {
  const a = routeOf(recorded);
  const b = routeOf(live);
  return matches(a.method, b.method) && matches(a.path, b.path);
}

/** Equal, where a masked part of the recorded text stands for any text. */
function matches(recorded: unknown, live: unknown): boolean {
  if (typeof recorded !== "string" || typeof live !== "string" || !recorded.includes(maskText))
    return recorded === live;
  const pattern = recorded.split(maskText).map(escapeRegExp).join(".+?");
  return new RegExp(`^${pattern}$`, "s").test(live);
}

function describeRoute(payload: unknown): string {
  const { method, path } = routeOf(payload);
  return typeof method === "string" || typeof path === "string"
    ? `${String(method ?? "")} ${String(path ?? "")}`.trim()
    : "no method or service_path";
}
