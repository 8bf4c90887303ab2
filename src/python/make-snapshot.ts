// A worker thread that makes a user's Python start-up snapshot (see snapshot.ts): Pyodide loaded with the
// standard library modules cells use already imported, written whole or not at all.
import { renameSync, writeFileSync } from "node:fs";
import { threadId, workerData } from "node:worker_threads";
import { loadPyodide } from "pyodide";

const { file } = workerData as { file: string };
const pyodide = await loadPyodide({ _makeSnapshot: true, stdout: () => {}, stderr: () => {} });
pyodide.runPython("import datetime, decimal, json, re, types, uuid, math, random, string, base64, hashlib");
const temp = `${file}.${process.pid}-${threadId}.tmp`;
writeFileSync(temp, pyodide.makeMemorySnapshot());
renameSync(temp, file);
