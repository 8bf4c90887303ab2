// readPythonCell reads a cell without CPython, and answers only where it is sure of CPython's answer:
// each cell of the corpus (fixtures/python-cells.ts) and its mutations is read by both, and where
// readPythonCell answers, CPython must compile the cell and find the same facts. Everyday cells it must
// answer for itself.
import { isDeepStrictEqual } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import {
  loadPython,
  type NameAt,
  type PythonCellFacts,
  type PythonRuntime,
} from "../../src/python/runtime.js";
import { builtinNames } from "../../src/python/syntax/builtin-names.js";
import { type PythonCellReading, readPythonCell } from "../../src/python/syntax/read-cell.js";
import {
  everydayCells,
  exoticCells,
  invalidCells,
  mutatedCells,
  type PythonCell,
  tooDeepCells,
} from "./fixtures/python-cells.js";

let runtime: PythonRuntime;

beforeAll(async () => {
  runtime = await loadPython();
}, 30_000);

const validCells = [...everydayCells, ...exoticCells];
const mutants = mutatedCells(validCells);

/** Names by line, column and name. */
const byPlace = (names: NameAt[]) =>
  names
    .map(([name, line, column]): NameAt => [name, line, column])
    .sort((a, b) => a[1] - b[1] || a[2] - b[2] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/**
 * Facts in an order of their own, CPython's coming in ast.walk's order; keep()'s keys that are no strings
 * (keep({1: x})) left out, as lint reads none of them.
 */
function normalized(facts: PythonCellFacts): PythonCellFacts {
  return {
    free: byPlace(facts.free),
    formula_variables: byPlace(facts.formula_variables),
    kept: facts.kept.filter((name) => typeof name === "string").sort(),
    map_value: byPlace(facts.map_value),
    imports: byPlace(facts.imports),
  };
}

/** The last line of an error: a Python traceback says what went wrong there. */
const lastLine = (error: unknown) => String(error).trim().split("\n").at(-1);

/**
 * CPython's first syntax error in a cell, as "message at line:column"; undefined when the cell compiles.
 * bass's compile of a cell may also fail otherwise (a RecursionError of a cell nested too deeply, a
 * ValueError of the tree it rewrites), which is said as such.
 */
function cpythonError(code: string): string | undefined {
  try {
    const error = runtime.syntaxError(code);
    return error && `${error.message} at ${error.line}:${error.column}`;
  } catch (failure) {
    return `bass's syntax_error fails on the cell: ${lastLine(failure)}`;
  }
}

/** What is wrong with readPythonCell's answer for a cell, by CPython's; undefined when nothing is. */
function disagreement(code: string): string | undefined {
  let reading: PythonCellReading | undefined;
  try {
    reading = readPythonCell(code);
  } catch (error) {
    return `readPythonCell threw: ${lastLine(error)}`;
  }
  if (reading === undefined) return undefined;
  const error = cpythonError(code);
  if ("error" in reading) {
    const said = `${reading.error.message} at ${reading.error.line}:${reading.error.column}`;
    return said === error ? undefined : `readPythonCell says ${said}; CPython says ${error ?? "it compiles"}`;
  }
  const ours = reading.facts;
  if (error) return `readPythonCell gave facts; CPython says ${error}`;
  let theirs: PythonCellFacts;
  try {
    theirs = runtime.facts(code);
  } catch (failure) {
    return `readPythonCell gave facts; CPython's cell_facts fails on the cell: ${lastLine(failure)}`;
  }
  const [mine, cpython] = [normalized(ours), normalized(theirs)];
  return isDeepStrictEqual(mine, cpython)
    ? undefined
    : `facts differ: readPythonCell ${JSON.stringify(mine)}, CPython ${JSON.stringify(cpython)}`;
}

/** A cell's code as a failure shows it: the long cells at CPython's limits cut short. */
const shown = (code: string) =>
  code.length > 300 ? `${code.slice(0, 300)}… (${code.length} characters)` : code;

/** Each cell readPythonCell disagrees with CPython on, with what is wrong. */
const disagreements = (cells: readonly PythonCell[]) =>
  cells.flatMap(({ name, code }) => {
    const problem = disagreement(code);
    return problem ? [{ name, code: shown(code), problem }] : [];
  });

describe("readPythonCell against CPython", () => {
  it("has a corpus CPython labels as it does: valid cells compile, invalid ones do not", () => {
    expect(everydayCells.length).toBeGreaterThanOrEqual(120);
    expect(invalidCells.length).toBeGreaterThanOrEqual(80);
    const names = [...validCells, ...invalidCells, ...tooDeepCells].map((cell) => cell.name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    const mislabelled = [
      ...validCells.flatMap(({ name, code }) => {
        const error = cpythonError(code);
        return error ? [{ name, code: shown(code), cpython: error }] : [];
      }),
      ...invalidCells.flatMap(({ name, code }) => {
        const error = cpythonError(code);
        return error?.startsWith("bass's") || !error
          ? [{ name, code: shown(code), cpython: error ?? "compiles" }]
          : [];
      }),
      ...tooDeepCells.flatMap(({ name, code }) => {
        const error = cpythonError(code);
        return error?.includes("RecursionError")
          ? []
          : [{ name, code: shown(code), cpython: error ?? "compiles" }];
      }),
    ];
    expect(mislabelled).toEqual([]);
  });

  it("vouches only for cells CPython compiles, with CPython's facts", () => {
    expect(disagreements([...validCells, ...invalidCells, ...tooDeepCells])).toEqual([]);
  }, 20_000);

  it("vouches only for mutated cells CPython compiles, with CPython's facts", () => {
    expect(mutants.length).toBeGreaterThan(validCells.length * 3);
    expect(disagreements(mutants)).toEqual([]);
  }, 20_000);

  // Mutants of mutants hold two mistakes at once: which one CPython says first is what the errors
  // bass says itself must get right.
  it("says what CPython says of cells with two mistakes", () => {
    const twice = mutatedCells(mutants);
    expect(twice.length).toBeGreaterThan(mutants.length * 3);
    expect(disagreements(twice)).toEqual([]);
  }, 60_000);

  it("reads every everyday cell itself, leaving none to CPython", () => {
    const uncovered = everydayCells.filter(({ code }) => {
      try {
        const reading = readPythonCell(code);
        return reading === undefined || "error" in reading;
      } catch {
        return true;
      }
    });
    expect(
      uncovered,
      `readPythonCell left ${uncovered.length} everyday cells to CPython:\n${uncovered.map(({ name }) => name).join("\n")}`,
    ).toEqual([]);
  });

  it("says the commonest mistakes in CPython's words and places, without it", () => {
    const cells = [
      "if a\n  b = 2\n",
      "x = 1\nfor item in items  # each\n  pass\n",
      "def f(a) -> int\n  return a\n",
      "try:\n  pass\nexcept KeyError as e\n  pass\n",
      "if a:\nb = 1\n",
      "@cache\ndef f():\nreturn 1\n",
      "while a:\n  pass\nelse:\nb\n",
      "class A:\nx = 1\n",
      "name = 'Ada\nx = 1\n",
      'note = "café" + "d\n',
      'doc = """text\nmore\n',
      "if a:\n    pass\n  b = 1\n",
      "total = sum(amounts,\n  start\n",
      "items = [\nif a:\n  pass\n",
    ];
    const said = cells.map((code) => {
      const reading = readPythonCell(code);
      return reading && "error" in reading
        ? `${reading.error.message} at ${reading.error.line}:${reading.error.column}`
        : reading;
    });
    expect(said).toEqual(cells.map(cpythonError));
  });

  it("knows the built-ins the runtime's cells see", () => {
    const names = [...builtinNames].filter((name) => name !== "__debug__");
    expect(runtime.facts(names.join("\n")).free).toEqual([]);
    expect(readPythonCell(names.join("\n"))).toEqual({ facts: expect.objectContaining({ free: [] }) });
  });
});
