import type { Command } from "commander";
import {
  type CommandKit,
  type GlobalOptions,
  parseMilliseconds,
  parsePort,
  parseRate,
} from "../command-kit.js";
import type { MockcoreCommandOptions } from "../mockcore.js";

export const examples: Record<string, string[]> = {
  mockcore: ["mockcore --port 4010 --data .bass/core.json", "mockcore --latency 200 --error-rate 0.1"],
};

export function add(program: Command, { context, globals, outputFor }: CommandKit): void {
  globals(
    program
      .command("mockcore")
      .description("serve the mock core banking system (its demo data, or a data file) until Ctrl-C")
      .option("--port <n>", "the port to listen on (0: any free port)", parsePort, 4010)
      .option("--host <host>", "the address to listen on", "127.0.0.1")
      .option("--data <file>", "keep the core's state in this JSON file (default: in memory)")
      .option("--latency <ms>", "wait this many milliseconds before each answer", parseMilliseconds)
      .option("--error-rate <r>", "share of requests (0 to 1) answered 500", parseRate)
      .option(
        "--reset-rate <r>",
        "share of requests (0 to 1) whose connection drops after the work is done",
        parseRate,
      )
      .option(
        "--malformed-rate <r>",
        "share of requests (0 to 1) answered 200 with a body that is not JSON",
        parseRate,
      ),
  ).action(async (options: GlobalOptions & Omit<MockcoreCommandOptions, "cwd" | "stopped">) => {
    const { runMockcore } = await import("../mockcore.js");
    const { port, host, data, latency, errorRate, resetRate, malformedRate } = options;
    context.exitCode = await runMockcore(
      { port, host, data, latency, errorRate, resetRate, malformedRate, cwd: context.cwd },
      await outputFor(options),
    );
  });
}
