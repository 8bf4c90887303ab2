import { type Command, Option } from "commander";
import { type CommandKit, invokedAs } from "../command-kit.js";

export const examples: Record<string, string[]> = {
  init: ["init my-project", "init my-project --template samples"],
};

export function add(program: Command, { context, outputFor }: CommandKit): void {
  program
    .command("init")
    .description("make a new project that validates, runs and passes its test as it is")
    .argument("[dir]", "the folder to make it in (default: the current folder)")
    .addOption(
      new Option("--template <template>", "starter: one integration; samples: the six samples")
        .choices(["starter", "samples"])
        .default("starter"),
    )
    .option("--no-color", "no colour, also when the terminal has it (NO_COLOR is honoured too)")
    .action(async (dir: string | undefined, options: { template: "starter" | "samples"; color: boolean }) => {
      const { runInit } = await import("../init.js");
      context.exitCode = runInit(
        dir,
        { template: options.template, cwd: context.cwd, command: invokedAs(context.env) },
        await outputFor(options),
      );
    });
}
