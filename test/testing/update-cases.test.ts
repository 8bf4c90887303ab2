import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { applyUpdates } from "../../src/testing/update-cases.js";

const update = (index: number, output: unknown) => ({ entry: undefined as never, index, output });

describe("applyUpdates", () => {
  const text = `# tests of x
integration: x
cases:
  - name: one   # the first
    input: { payload: { a: 'quoted' } }
    expect:
      state: success
      output:
        status: 200
        payload: { id: old }

      # what the run recorded
      items: []
  - name: two
    expect: { output: { status: 1 } }
  - name: three
    expect:
      output: { status: 2 }
`;

  it("replaces only the expected outputs it is given, block as block and flow as flow", () => {
    const next = applyUpdates(text, [
      update(0, { status: 201, payload: { id: { $type: "string" } } }),
      update(2, { status: 3 }),
    ]);
    expect(next).toBe(
      text
        .replace(
          "        status: 200\n        payload: { id: old }",
          "        status: 201\n        payload:\n          id:\n            $type: string",
        )
        .replace("output: { status: 2 }", "output: { status: 3 }"),
    );
    expect(parse(next).cases[0].expect).toEqual({
      state: "success",
      output: { status: 201, payload: { id: { $type: "string" } } },
      items: [],
    });
  });

  it("changes nothing without updates", () => {
    expect(applyUpdates(text, [])).toBe(text);
  });

  it("adds an expected output a case did not have", () => {
    const next = applyUpdates("integration: x\ncases:\n  - name: one\n    expect: { state: success }\n", [
      update(0, { status: 200 }),
    ]);
    expect(parse(next).cases[0].expect).toEqual({ state: "success", output: { status: 200 } });
  });
});

describe("applyUpdates where the old expectation is no block map", () => {
  it("writes flow where the old value stood on its key's line, and applies every update with a new key", () => {
    const text =
      "integration: x\ncases:\n  - name: one\n    expect:\n      output: null\n  - name: two\n    expect: {}\n";
    const next = applyUpdates(text, [update(0, { status: 200 }), update(1, { status: 201 })]);
    const parsed = parse(next);
    expect(parsed.cases[0].expect).toEqual({ output: { status: 200 } });
    expect(parsed.cases[1].expect).toEqual({ output: { status: 201 } });
    expect(applyUpdates(text, [update(0, { status: 200, payload: { a: [1] } })])).toContain(
      "output: { status: 200, payload: { a: [ 1 ] } }",
    );
  });
});
