import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// How the code is laid out, as a maintainer who did not write it needs it to stay.
const root = join(import.meta.dirname, "..");

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

describe("the house", () => {
  it("keeps each command's file under src/cli short: none over 300 lines", () => {
    const long = files("src/cli")
      .map((file) => [file, readFileSync(join(root, file), "utf8").split("\n").length] as const)
      .filter(([, lines]) => lines > 300);
    expect(long).toEqual([]);
  });

  it("has no module-level let where runs, threads and requests live (a worker's entry file aside)", () => {
    const folders = ["src/engine", "src/python", "src/pool", "src/serve", "src/history", "src/project"];
    const lets = folders
      .flatMap(files)
      .filter((file) => !/worker[^/]*\.ts$/.test(file))
      .flatMap((file) =>
        readFileSync(join(root, file), "utf8")
          .split("\n")
          .flatMap((line, index) =>
            /^(export )?let /.test(line) ? [`${relative(root, join(root, file))}:${index + 1}`] : [],
          ),
      );
    expect(lets).toEqual([]);
  });

  it("holds every function to Biome's default cognitive complexity, with no suppression of it", () => {
    const config = JSON.parse(readFileSync(join(root, "biome.json"), "utf8"));
    expect(config.linter.rules.complexity.noExcessiveCognitiveComplexity.options.maxAllowedComplexity).toBe(
      15,
    );
    const suppression = ["biome-ignore", "lint/complexity/noExcessiveCognitiveComplexity"].join(" ");
    const suppressed = [...files("src"), ...files("test"), ...files("ui")].filter((file) =>
      readFileSync(join(root, file), "utf8").includes(suppression),
    );
    expect(suppressed).toEqual([]);
  });
});
