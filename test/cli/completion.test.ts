import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir, runCli } from "../_helpers.js";

/** What bash completes after `words`, the last one being typed, with the script bass printed. */
function bashCompletes(script: string, words: string[]): string[] {
  const file = join(createTempDir(), "bass.bash");
  writeFileSync(file, script);
  const typed = words.map((word) => JSON.stringify(word)).join(" ");
  const out = execFileSync(
    "bash",
    [
      "-c",
      `source ${file}; COMP_WORDS=(bass ${typed}); COMP_CWORD=${words.length}; _bass_completion; echo "\${COMPREPLY[@]}"`,
    ],
    { encoding: "utf8" },
  );
  return out.trim().split(" ").filter(Boolean);
}

describe("bass completion", () => {
  it("completes commands, subcommands and each command's options in bash", async () => {
    const { code, stdout } = await runCli(["completion", "bash"], { cwd: createTempDir() });
    expect(code).toBe(0);
    expect(bashCompletes(stdout, ["te"])).toEqual(["test"]);
    expect(bashCompletes(stdout, ["history", "s"])).toEqual(["show"]);
    expect(bashCompletes(stdout, ["run", "customers.create", "--mo"])).toEqual(["--mock"]);
    expect(bashCompletes(stdout, ["test", "--cov"]).sort()).toEqual([
      "--coverage",
      "--coverage-dir",
      "--coverage-threshold",
    ]);
  });

  it("gives zsh the bash script through bashcompinit, and fish its own", async () => {
    const zsh = await runCli(["completion", "zsh"], { cwd: createTempDir() });
    expect(zsh.stdout.split("\n")[0]).toBe("autoload -U +X bashcompinit && bashcompinit");
    expect(zsh.stdout).toContain("complete -o default -F _bass_completion bass");
    const fish = await runCli(["completion", "fish"], { cwd: createTempDir() });
    expect(fish.stdout).toContain('complete -c bass -n "__fish_use_subcommand" -a validate');
    expect(fish.stdout).toContain('complete -c bass -n "__fish_seen_subcommand_from run" -l mock');
    expect(fish.stdout).toContain('complete -c bass -n "__fish_seen_subcommand_from history" -a rerun');
  });

  it("refuses a shell it does not know (exit 2)", async () => {
    const result = await runCli(["completion", "powershell"], { cwd: createTempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Allowed choices are bash, zsh, fish");
  });
});
