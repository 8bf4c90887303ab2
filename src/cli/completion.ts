import type { Command, Option } from "commander";

/** The shells `bass completion` writes a script for. */
export const completionShells = ["bash", "zsh", "fish"] as const;
export type CompletionShell = (typeof completionShells)[number];

/** A command's words for completion: its name, its subcommands' names, its long options. */
interface CommandWords {
  path: string[];
  subcommands: string[];
  options: string[];
}

/** Every command and subcommand of the program, with what may follow it. */
function wordsOf(program: Command): CommandWords[] {
  const longOptions = (command: Command) =>
    command.options.flatMap((option: Option) => (option.long ? [option.long] : [])).concat("--help");
  const walk = (command: Command, path: string[]): CommandWords[] => [
    { path, subcommands: command.commands.map((sub) => sub.name()), options: longOptions(command) },
    ...command.commands.flatMap((sub) => walk(sub, [...path, sub.name()])),
  ];
  return walk(program, []);
}

/** The completion script of `shell` for the program as it stands: its commands, subcommands and options. */
export function completionScript(program: Command, shell: CompletionShell): string {
  const commands = wordsOf(program);
  return shell === "fish" ? fishScript(commands) : bashScript(commands, shell);
}

/** bash's (and zsh's, through bashcompinit): the words after the command path typed so far; files otherwise. */
function bashScript(commands: CommandWords[], shell: "bash" | "zsh"): string {
  const cases = commands
    .map(
      ({ path, subcommands, options }) =>
        `    "${path.join(" ")}") words="${[...subcommands, ...options].join(" ")}" ;;`,
    )
    .join("\n");
  return `${shell === "zsh" ? "autoload -U +X bashcompinit && bashcompinit\n" : ""}# bass completion ${shell}: source it, or write it where your shell reads completions.
_bass_completion() {
  local current="\${COMP_WORDS[COMP_CWORD]}" path="" word words
  for word in "\${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$word" in -*) ;; *) case " $(_bass_words "$path") " in *" $word "*) path="\${path:+$path }$word" ;; esac ;; esac
  done
  words="$(_bass_words "$path")"
  COMPREPLY=($(compgen -W "$words" -- "$current"))
}
_bass_words() {
  local words=""
  case "$1" in
${cases}
  esac
  echo "$words"
}
complete -o default -F _bass_completion bass
`;
}

/** fish's: subcommands where they may come, each command's long options once it is typed. */
function fishScript(commands: CommandWords[]): string {
  const lines = [
    "# bass completion fish: source it, or save it as ~/.config/fish/completions/bass.fish",
    "complete -c bass -f",
  ];
  for (const { path, subcommands, options } of commands) {
    const typed = path.length === 0 ? "__fish_use_subcommand" : `__fish_seen_subcommand_from ${path.at(-1)}`;
    for (const sub of subcommands) lines.push(`complete -c bass -n "${typed}" -a ${sub}`);
    for (const option of options) lines.push(`complete -c bass -n "${typed}" -l ${option.slice(2)}`);
  }
  // Files and folders may follow most commands (definitions, inputs, mocks, test files).
  lines.push('complete -c bass -n "not __fish_use_subcommand" -F');
  return `${lines.join("\n")}\n`;
}
