import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where bass keeps what it makes once per user and reuses (Python's start-up snapshot, the CLI's compiled
 * code): `BASS_CACHE_DIR`, else `$XDG_CACHE_HOME/bass`, else `~/.cache/bass` (`%LOCALAPPDATA%\bass` on
 * Windows).
 */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env.BASS_CACHE_DIR ||
    (env.XDG_CACHE_HOME && join(env.XDG_CACHE_HOME, "bass")) ||
    (process.platform === "win32" && env.LOCALAPPDATA && join(env.LOCALAPPDATA, "bass")) ||
    join(homedir(), ".cache", "bass")
  );
}
