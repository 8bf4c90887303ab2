import { Argument, type Command } from "commander";
import type { CommandKit } from "../command-kit.js";
import { type CompletionShell, completionScript, completionShells } from "../completion.js";

export const examples: Record<string, string[]> = {
  completion: [
    "completion bash > ~/.local/share/bash-completion/completions/bass",
    "completion fish > ~/.config/fish/completions/bass.fish",
    "completion zsh >> ~/.zshrc",
  ],
};

export function add(program: Command, { context }: CommandKit): void {
  program
    .command("completion")
    .description("print the shell completion script of bass's commands and options (bash, zsh or fish)")
    .addArgument(new Argument("<shell>", "the shell").choices(completionShells))
    .action((shell: CompletionShell) => {
      context.write.stdout(completionScript(program, shell));
      context.exitCode = 0;
    });
}
