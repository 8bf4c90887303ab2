// `node bench/soak.js [seconds]`: `bass serve` (the build, three workers) under a steady load of normal
// requests while hostile cells of both languages come one after another: blocking calls, runaway patterns,
// oversized answers, leftover promise work, Python that reaches for the host or hoards memory. It prints
// what every request was answered with, how long normal requests waited, and serve's resident memory.
// Not part of `npm run bench`: it takes minutes. docs/architecture.md gives its figures.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { stringify } from "yaml";

const seconds = Number(process.argv[2] ?? 60);
const normalConnections = 8;
const bin = new URL("../bin/bass.cjs", import.meta.url).pathname;

/** A built-in that backtracks without end, which only a worker's end stops, called by bass after a cell returned. */
const stuck = "RegExp.prototype.test.bind(/^(?=a)(a+)+$/, 'a'.repeat(36) + 'b')";

/** The hostile cells, each behind a POST endpoint named after it, and the answer each must get. */
const hostile = {
  atomics: [500, { before_hook: "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)" }],
  backtracks: [200, { on_success_hook: "output.payload = /^(a+)+$/.test('a'.repeat(40) + 'b')" }],
  lookaround: [504, { on_success_hook: "output.payload = /^(?=a)(a+)+$/.test('a'.repeat(40) + 'b')" }],
  backreference: [504, { on_success_hook: "output.payload = /^(a+)+\\1$/.test('a'.repeat(40) + 'b')" }],
  loops: [504, { before_hook: "for (;;) {}" }],
  "big-output": [500, { on_success_hook: "output.payload = 'x'.repeat(12 * 1024 * 1024)" }],
  "leaves-work": [200, { before_hook: "void (async () => { for (;;) await null })()" }],
  "to-json": [504, { on_success_hook: `output.payload = { toJSON: ${stuck} }` }],
  "then-getter": [504, { on_success_hook: `Object.defineProperty({}, "then", { get: ${stuck} })` }],
  "proxy-headers": [504, { on_success_hook: `output.headers = new Proxy({}, { ownKeys: ${stuck} })` }],
  arguments: [500, { before_hook: "arguments[1].countdown = Infinity; for (;;) {}" }],
  "status-twice": [
    200,
    {
      on_success_hook:
        "let n = 0; output = { get status() { return n++ ? 700 : 200 }, headers: {}, payload: 1 }",
    },
  ],
  framing: [
    200,
    { on_success_hook: "output.headers = { 'Transfer-Encoding': 'chunked', Connection: 'close' }" },
  ],
  "big-header": [500, { on_success_hook: "output.headers = { 'X-Big': 'x'.repeat(5 * 1024 * 1024) }" }],
  "huge-answer": [500, { on_success_hook: "output.payload = { s: 'x'.repeat(150 * 2 ** 20) }" }],
  "heap-bomb": [
    500,
    {
      on_success_hook:
        "const kept = []\nfor (;;) kept.push({ at: kept.length, list: new Array(1024).fill(kept.length) })",
    },
  ],
  "py-js": [500, { language: "python", before_hook: 'exec("import js")' }],
  "py-hack": [200, { language: "python", before_hook: 'import json\njson.dumps = lambda *a, **k: "x"' }],
  "py-native": [504, { language: "python", before_hook: "sum(range(10**10))" }],
  "py-hoards": [200, { language: "python", on_success_hook: "output.payload = len(bytearray(160 * 2**20))" }],
};

function writeProject() {
  const dir = mkdtempSync(join(tmpdir(), "bass-soak-"));
  mkdirSync(join(dir, "integrations"));
  writeFileSync(
    join(dir, "bass.config.yaml"),
    stringify({ systems: {}, serve: { workers: 3 }, limits: { cell_timeout_ms: 500, cell_memory_mb: 64 } }),
  );
  const write = (name, cells) =>
    writeFileSync(
      join(dir, "integrations", `${name}.yaml`),
      stringify({ name, endpoints: [{ method: "POST", path: `/${name}` }], ...cells }),
    );
  write("ping", { on_success_hook: "output.payload = { pong: input.payload.n }" });
  write("py-json", {
    language: "python",
    on_success_hook: 'import json\noutput.payload = json.dumps({"a": 1})',
  });
  for (const [name, [, cells]] of Object.entries(hostile)) write(name, cells);
  return dir;
}

async function startServe(dir) {
  const child = spawn(process.execPath, [bin, "serve", "--project", dir, "--port", "0"], {
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  child.stdout.on("data", (chunk) => (printed += chunk));
  child.stderr.on("data", (chunk) => (printed += chunk));
  const url = await new Promise((resolve, reject) => {
    const look = setInterval(() => {
      const found = /listening on (http:\/\/[^\s]+)/.exec(printed)?.[1];
      if (found) resolve(found);
      if (found || child.exitCode !== null) clearInterval(look);
      if (child.exitCode !== null) reject(new Error(printed));
    }, 50);
  });
  return { child, url, printed: () => printed };
}

const residentMb = (pid) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;

async function post(url, body = "{}") {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const text = await response.text();
    return { status: response.status, text, ms: performance.now() - started };
  } catch (error) {
    return { status: 0, text: String(error), ms: performance.now() - started };
  }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

const dir = writeProject();
const serve = await startServe(dir);
const pid = serve.child.pid;
for (let round = 0; round < 6; round++) {
  await post(`${serve.url}/ping`, '{"n":0}');
  await post(`${serve.url}/py-json`);
}
const startMb = residentMb(pid);
let highestMb = startMb;
const sampling = setInterval(() => {
  highestMb = Math.max(highestMb, residentMb(pid));
}, 250);

const endAt = performance.now() + seconds * 1000;
const normal = { answered: 0, wrong: [], latencies: [] };
const outcomes = Object.fromEntries(Object.keys(hostile).map((name) => [name, { right: 0, wrong: [] }]));

async function normalLoad() {
  for (let n = 1; performance.now() < endAt; n++) {
    const answer = await post(`${serve.url}/ping`, JSON.stringify({ n }));
    normal.latencies.push(answer.ms);
    if (answer.status === 200 && answer.text === JSON.stringify({ pong: n })) normal.answered++;
    else
      normal.wrong.push(answer.status === 0 ? answer.text : `${answer.status} ${answer.text.slice(0, 120)}`);
  }
}

async function hostileLoad() {
  const names = Object.keys(hostile);
  for (let turn = 0; performance.now() < endAt; turn++) {
    const name = names[turn % names.length];
    const answer = await post(`${serve.url}/${name}`);
    const outcome = outcomes[name];
    if (answer.status === hostile[name][0]) outcome.right++;
    else outcome.wrong.push(answer.status);
    // A clean Python run after the one that changed json: it must not see the change.
    if (name === "py-hack") {
      const clean = await post(`${serve.url}/py-json`);
      if (clean.text !== JSON.stringify('{"a": 1}')) outcome.wrong.push(`py-json after it: ${clean.text}`);
    }
  }
}

await Promise.all([...Array.from({ length: normalConnections }, normalLoad), hostileLoad()]);
clearInterval(sampling);
const hostileMb = residentMb(pid);
await new Promise((resolve) => setTimeout(resolve, 15_000));
const settledMb = residentMb(pid);
serve.child.kill();
rmSync(dir, { recursive: true, force: true });

const sorted = normal.latencies.sort((a, b) => a - b);
const replaced = serve
  .printed()
  .split("\n")
  .filter((line) => line.includes("worker thread was replaced")).length;
console.log(`soak: ${seconds} s, ${normalConnections} connections of normal requests, one of hostile ones`);
console.log(
  `normal: ${normal.answered} answered right, ${normal.wrong.length} not${normal.wrong.length ? ` (${[...new Set(normal.wrong)].join("; ")})` : ""}; waited p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${sorted.at(-1).toFixed(0)} ms`,
);
for (const [name, outcome] of Object.entries(outcomes))
  console.log(
    `${name}: ${outcome.right} answered ${hostile[name][0]}${outcome.wrong.length ? `, ${outcome.wrong.length} not (${[...new Set(outcome.wrong)].join(", ")})` : ""}`,
  );
console.log(
  `resident: ${startMb.toFixed(0)} MB at the start, ${highestMb.toFixed(0)} MB at most, ${hostileMb.toFixed(0)} MB at the end, ${settledMb.toFixed(0)} MB 15 s later; ${replaced} workers replaced for what they held`,
);
