import type { Command } from "commander";
import { type CommandKit, type GlobalOptions, parsePort } from "../command-kit.js";

export const examples: Record<string, string[]> = {
  serve: ["serve", "serve --watch --port 8080"],
};

export function add(program: Command, { context, globals, outputFor }: CommandKit): void {
  globals(
    program
      .command("serve")
      .description("answer the project's endpoints as a local REST API")
      .option("--port <n>", "the port (default: serve.port, 3000)", parsePort)
      .option("--host <host>", "the address to listen on (default: serve.host, 127.0.0.1)")
      .option("--watch", "reload definitions and the project file when they change", false)
      .option("--insecure", "listen on a non-loopback address without auth", false),
  ).action(
    async (options: GlobalOptions & { port?: number; host?: string; watch: boolean; insecure: boolean }) => {
      const { runServe } = await import("../serve.js");
      const { port, host, watch, insecure, project } = options;
      context.exitCode = await runServe(
        { port, host, watch, insecure, project, cwd: context.cwd, env: context.env, engine: context.engine },
        await outputFor(options),
      );
    },
  );
}
