import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, onTestFinished } from "vitest";
import { watchTree } from "../../src/cli/watch-tree.js";
import { createTempDir } from "../_helpers.js";

/** Watches a new folder and collects the relative paths it reports. */
function watched(files: Record<string, string> = {}) {
  const root = createTempDir(files);
  const seen: string[] = [];
  const everything: string[] = [];
  const watcher = watchTree(root, (file) => {
    seen.push(file);
    everything.push(file);
  });
  onTestFinished(() => watcher.close());
  /** Waits until `file` has been reported since the last call, then forgets what was seen. */
  const reported = async (file: string) => {
    for (let waited = 0; !seen.includes(file); waited += 10) {
      if (waited > 3000) throw new Error(`${file} was not reported; seen: ${JSON.stringify(seen)}`);
      await sleep(10);
    }
    seen.length = 0;
  };
  return { root, everything, reported };
}

describe("watchTree", () => {
  it("sees every save of a file an editor saves by renaming a temp file over it", async () => {
    const { root, reported } = watched({ "integrations/a.yaml": "name: a\n" });
    for (let save = 1; save <= 3; save++) {
      writeFileSync(join(root, "integrations", ".a.yaml.swp"), `name: a${save}\n`);
      renameSync(join(root, "integrations", ".a.yaml.swp"), join(root, "integrations", "a.yaml"));
      await reported(join("integrations", "a.yaml"));
    }
  });

  it("sees files written in place, and in folders made after it started, also ones written at once", async () => {
    const { root, reported } = watched({ "bass.config.yaml": "" });
    writeFileSync(join(root, "bass.config.yaml"), "integrations: .\n");
    await reported("bass.config.yaml");
    mkdirSync(join(root, "new", "deeper"), { recursive: true });
    writeFileSync(join(root, "new", "deeper", "b.yaml"), "name: b\n");
    await reported(join("new", "deeper", "b.yaml"));
    writeFileSync(join(root, "new", "deeper", "b.yaml"), "name: b2\n");
    await reported(join("new", "deeper", "b.yaml"));
    rmSync(join(root, "new"), { recursive: true });
    await reported("new");
  });

  it("watches a folder again that was removed and made anew", async () => {
    const { root, reported } = watched({ "sub/a.yaml": "name: a\n" });
    rmSync(join(root, "sub"), { recursive: true });
    await reported("sub");
    mkdirSync(join(root, "sub"));
    await reported("sub");
    for (let save = 1; save <= 2; save++) {
      writeFileSync(join(root, "sub", "b.yaml"), `name: b${save}\n`);
      await reported(join("sub", "b.yaml"));
    }
  });

  it("does not look into .bass, where serve writes its history", async () => {
    const { root, everything, reported } = watched({ ".bass/history/x.jsonl": "", "a.yaml": "" });
    writeFileSync(join(root, ".bass", "history", "x.jsonl"), "{}\n");
    mkdirSync(join(root, ".bass", "more"));
    writeFileSync(join(root, "a.yaml"), "name: a\n");
    await reported("a.yaml");
    await sleep(50);
    expect(everything).not.toEqual([]);
    expect(everything.filter((file) => file.startsWith(".bass"))).toEqual([]);
  });
});
