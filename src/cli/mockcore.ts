import { resolve } from "node:path";
import { BassError } from "../errors.js";
import { isLoopbackHost } from "../loopback.js";
import { startMockcore } from "../mockcore/server.js";
import { startSharedMockcore } from "../mockcore/shared-core.js";
import { createBatch } from "../serve/batch.js";
import type { Output } from "./output.js";
import { waitForStopSignal } from "./stop-signal.js";

export interface MockcoreCommandOptions {
  port: number;
  host: string;
  /** The data file, relative to `cwd`; without it the core keeps the demo data in memory. */
  data?: string | undefined;
  latency?: number | undefined;
  errorRate?: number | undefined;
  resetRate?: number | undefined;
  malformedRate?: number | undefined;
  cwd: string;
  /** Resolves when the core should stop (default: the process's first SIGINT or SIGTERM). */
  stopped?: Promise<unknown>;
}

/** `bass mockcore`: serves the mock core until stopped, then closes it with its data file written; exit 0. */
export async function runMockcore(options: MockcoreCommandOptions, output: Output): Promise<number> {
  // Listening from the start, so a signal that comes while the core starts still stops it cleanly.
  const signal = options.stopped ? undefined : waitForStopSignal();
  const stopped = options.stopped ?? signal?.received;
  const dataFile = options.data === undefined ? undefined : resolve(options.cwd, options.data);
  // One line per request, written in batches as serve's are.
  const requestLog = createBatch<string>((lines) => output.stdout(`${lines.join("\n")}\n`), 10);
  const settings = {
    host: options.host,
    port: options.port,
    log: requestLog.add,
    faults: {
      latencyMs: options.latency,
      errorRate: options.errorRate,
      resetRate: options.resetRate,
      malformedRate: options.malformedRate,
    },
  };
  const core = await (dataFile
    ? startSharedMockcore({ ...settings, dataFile, lasting: true })
    : startMockcore(settings)
  ).catch((error: unknown) => {
    signal?.cancel();
    throw error;
  });
  if ("ownerPid" in core && core.ownerPid !== undefined) {
    signal?.cancel();
    throw new BassError(
      "USAGE",
      `the data file ${dataFile} is in use by the mock core at ${core.url} (process ${core.ownerPid}); use that one, or stop it first`,
    );
  }
  if (!isLoopbackHost(options.host))
    output.stderr(
      `warning: the mock core has no authentication, and anyone who reaches ${options.host} can use it\n`,
    );
  output.stdout(`mockcore listening on ${core.url}${dataFile ? ` (data: ${dataFile})` : ""}\n`);
  await stopped;
  await core.close();
  requestLog.flush();
  output.stdout("mockcore stopped\n");
  return 0;
}
