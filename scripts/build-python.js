// Puts what Python cells need beside the build: cells.py, and a memory snapshot of Pyodide with the
// standard library modules cells use already imported, which loads faster than Pyodide itself
// (bench/python.js measures both). The snapshot API is not public: package.json pins Pyodide's exact version,
// and the snapshot's name holds it, so that another version loads without one instead of failing.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { loadPyodide, version } from "pyodide";

mkdirSync("dist/python", { recursive: true });
copyFileSync("src/python/cells.py", "dist/python/cells.py");
const pyodide = await loadPyodide({ _makeSnapshot: true, stdout: () => {}, stderr: () => {} });
pyodide.runPython("import datetime, decimal, json, re, types, uuid, math, random, string, base64, hashlib");
writeFileSync(`dist/python/python-${version}.snapshot`, pyodide.makeMemorySnapshot());
