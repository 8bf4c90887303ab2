import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// The code says where the behaviour it implements is written down, as `docs/<page>.md#<anchor>`: each
// such place must exist, as GitHub makes anchors of a page's headings.
const root = join(import.meta.dirname, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|js|py)$/.test(entry.name) ? [path] : [];
  });
}

/** GitHub's anchor of a heading: lower case, without punctuation but `-` and `_`, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown page: each heading's, a repeated one with `-1`, `-2` … as GitHub numbers them. */
function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(join(root, page), "utf8").split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] as string);
    let anchor = base;
    for (let count = 1; anchors.has(anchor); count++) anchor = `${base}-${count}`;
    anchors.add(anchor);
  }
  return anchors;
}

const cited = [...new Set(["src", "ui"].flatMap((dir) => sources(join(root, dir))))].flatMap((file) =>
  [...readFileSync(file, "utf8").matchAll(/docs\/([\w/-]+\.md)#([\w-]+)/g)].map((match) => ({
    where: relative(root, file),
    page: `docs/${match[1]}`,
    anchor: match[2] as string,
  })),
);

describe("the docs the code cites", () => {
  it("are cited, and the code cites no specification the repository does not hold", () => {
    expect(cited.length).toBeGreaterThan(50);
    const spec = sources(join(root, "src")).filter((file) =>
      /\bSPEC\b|(?<!RFC \d+ )§\d/.test(readFileSync(file, "utf8")),
    );
    expect(spec.map((file) => relative(root, file))).toEqual([]);
  });

  it.each(cited.map(({ where, page, anchor }) => [`${page}#${anchor}`, where, page, anchor]))(
    "%s (cited in %s) exists",
    (_, __, page, anchor) => {
      expect([...anchorsOf(page)]).toContain(anchor);
    },
  );

  it("makes anchors as GitHub does", () => {
    expect(slug("The run history: `.bass/history/`")).toBe("the-run-history-basshistory");
    expect(slug("`service_requests[].field_mappings[]`")).toBe("service_requestsfield_mappings");
    expect(slug("The mock core's API")).toBe("the-mock-cores-api");
  });
});
