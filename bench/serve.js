import { spawn } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import autocannon from "autocannon";
import { DEFINITION, PYTHON_DEFINITION } from "./definitions.js";
import { copySamples, median } from "./lib.js";

const bass = fileURLToPath(new URL("../bin/bass.cjs", import.meta.url));
const baselines = fileURLToPath(new URL("./serve-baselines.js", import.meta.url));

const ECHO_REQUEST = {
  path: "/bench/people",
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ first_name: " Grace ", email: "grace.hopper@example.com" }),
};
const ECHO_ANSWER = { first_name: "Grace", email: "grace.hopper@example.com" };
const LIVE_REQUEST = { path: "/api/v1/core-processor/customers?customer_id=P000001", method: "GET" };

const CONNECTIONS = 10;

/**
 * serve under load, measured with autocannon (10 connections, no pipelining) from this process while
 * each server runs in a child process of its own, all on 127.0.0.1:
 * - `bass serve` answering a small integration (DEFINITION: a POST with a small JSON body, one echo
 *   call, two field mappings, an on_success_hook) against a bare node:http server answering the same
 *   JSON (serve-baselines.js bare);
 * - the p99 latency and the errors (non-2xx answers, socket errors and time-outs) of those serve rounds;
 * - the live path: `bass serve` of the samples answering customers.retrieve (its http adapter GETs the
 *   person from a `bass mockcore` child) against a node:http server that forwards the same GET to the
 *   same mock core with an undici Pool (serve-baselines.js proxy).
 * Every server is checked to answer as expected, then loaded for 1 s untimed; then `rounds` rounds of
 * `seconds` s per server, each pair taking turns in an order that flips every round. Rates are 2xx
 * answers per second, medians of the rounds; latencies are every response's time over all rounds. On
 * Linux each note also gives each server's CPU per request over its rounds (all its threads), which
 * moves less than a rate on a shared machine and shows where a ratio comes from.
 */
export async function measureServe({ rounds = 3, seconds = 3, warmupSeconds = 1 } = {}) {
  const root = mkdtempSync(join(tmpdir(), "bass-bench-serve-"));
  const children = [];
  // Started together; every child that did start is stopped, even when another one failed to.
  const start = async (specs) => {
    const started = await Promise.allSettled(
      specs.map(([name, args, env]) => startChild(name, args, { dir: root, env })),
    );
    for (const result of started) if (result.status === "fulfilled") children.push(result.value);
    const failed = started.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    return started.map((result) => result.value);
  };
  try {
    const echoProject = join(root, "echo");
    mkdirSync(join(echoProject, "integrations"), { recursive: true });
    writeFileSync(
      join(echoProject, "bass.config.yaml"),
      "integrations: integrations\nsystems:\n  echo:\n    adapter: echo\nserve:\n  host: 127.0.0.1\n",
    );
    writeFileSync(join(echoProject, "integrations", "bench.serve.yaml"), DEFINITION);
    const pythonProject = join(root, "python");
    mkdirSync(join(pythonProject, "integrations"), { recursive: true });
    writeFileSync(
      join(pythonProject, "bass.config.yaml"),
      readFileSync(join(echoProject, "bass.config.yaml")),
    );
    writeFileSync(join(pythonProject, "integrations", "bench.serve.yaml"), PYTHON_DEFINITION);
    const liveProject = copySamples(root);

    const serve = (project) => [bass, "serve", "--project", project, "--host", "127.0.0.1", "--port", "0"];
    const [serveEcho, bare, { url: core }] = await start([
      ["serve-echo", serve(echoProject)],
      ["bare", [baselines, "bare"]],
      ["mockcore", [bass, "mockcore", "--host", "127.0.0.1", "--port", "0"]],
    ]);
    const [serveLive, proxy, servePython] = await start([
      ["serve-live", serve(liveProject), { CORE_URL: core }],
      ["proxy", [baselines, "proxy", core]],
      ["serve-python", serve(pythonProject)],
    ]);

    await expectAnswer(serveEcho.url, ECHO_REQUEST, 201, (body) => isDeepStrictEqual(body, ECHO_ANSWER));
    await expectAnswer(bare.url, ECHO_REQUEST, 201, (body) => isDeepStrictEqual(body, ECHO_ANSWER));
    await expectAnswer(servePython.url, ECHO_REQUEST, 201, (body) => isDeepStrictEqual(body, ECHO_ANSWER));
    await expectAnswer(serveLive.url, LIVE_REQUEST, 200, (body) => body?.customer_id === "P000001");
    await expectAnswer(proxy.url, LIVE_REQUEST, 200, (body) => body?.personId === "P000001");

    const targets = {
      serveEcho: { ...serveEcho, request: ECHO_REQUEST, latencies: true },
      bare: { ...bare, request: ECHO_REQUEST, latencies: true },
      servePython: { ...servePython, request: ECHO_REQUEST },
      serveLive: { ...serveLive, request: LIVE_REQUEST },
      proxy: { ...proxy, request: LIVE_REQUEST },
    };
    for (const target of Object.values(targets)) {
      Object.assign(target, {
        rates: [],
        latencyMs: [],
        errors: 0,
        statuses: {},
        cpuNs: 0,
        mainNs: 0,
        answered: 0,
      });
      await load(target, warmupSeconds, false);
    }
    for (let round = 0; round < rounds; round++) {
      for (const pair of [
        [targets.serveEcho, targets.bare, targets.servePython],
        [targets.serveLive, targets.proxy],
      ]) {
        for (const target of round % 2 ? [...pair].reverse() : pair) await load(target, seconds, true);
      }
    }
    for (const [name, target] of Object.entries({ bare: targets.bare, proxy: targets.proxy })) {
      if (target.errors) {
        throw new Error(
          `the ${name} baseline answered ${target.errors} requests with errors (${JSON.stringify(target.statuses)})`,
        );
      }
    }

    const rate = (target) => median(target.rates);
    const p99 = (target) => percentile(target.latencyMs, 0.99);
    // A server's rounds, its CPU per request (the process's own, all threads) and its errors.
    const spread = (target) =>
      [
        `${target.rates.map((value) => Math.round(value)).join(", ")} req/s`,
        cpuPerRequest(target),
        target.errors ? `${target.errors} errors: ${JSON.stringify(target.statuses)}` : undefined,
      ]
        .filter((part) => part !== undefined)
        .join(", ");
    const load10 = `autocannon, ${CONNECTIONS} connections, medians of ${rounds} rounds of ${seconds} s each, taking turns, after ${warmupSeconds} s of warm-up`;
    const echo = targets.serveEcho;
    const live = targets.serveLive;
    // CPU per answered request in ms, all threads of the server's process (NaN off Linux).
    const cpuMs = (target) => target.cpuNs / target.answered / 1e6;
    return [
      {
        name: "serve, echo integration",
        value: rate(echo),
        unit: "req/s",
        baseline: { value: rate(targets.bare), label: "bare node:http" },
        goal: { text: "0.4× the req/s or more", max: 2.5, of: "ratio" },
        note: `bass serve answers ${(rate(echo) / rate(targets.bare)).toFixed(2)}× the requests per second of a bare node:http server giving the same JSON (POST /bench/people with a ${ECHO_REQUEST.body.length}-byte JSON body, 1 echo call, 2 field mappings, on_success_hook, history written; ${load10}; serve rounds ${spread(echo)}; bare ${spread(targets.bare)})`,
      },
      {
        name: "serve, echo, CPU a request",
        value: cpuMs(echo),
        baseline: { ms: cpuMs(targets.bare), label: "bare node:http" },
        goal: { text: "0.4× bare's or better (2.5×)", max: 2.5, of: "ratio" },
        note: `bass serve spends ${(cpuMs(echo) / cpuMs(targets.bare)).toFixed(2)}× the CPU a request of the bare node:http server over the rounds above, all threads of each process (serve ${cpuPerRequest(echo)}; bare ${cpuPerRequest(targets.bare)})`,
      },
      {
        name: `serve p99 at ${CONNECTIONS} connections`,
        value: p99(echo),
        baseline: { ms: p99(targets.bare), label: "bare node:http p99" },
        goal: { text: "under 5 ms, no errors", max: 5, of: "value", holds: echo.errors === 0 },
        note: `the p99 of all ${echo.latencyMs.length} response times of the serve rounds above is ${p99(echo).toFixed(2)} ms (p50 ${percentile(echo.latencyMs, 0.5).toFixed(2)} ms, max ${percentile(echo.latencyMs, 1).toFixed(1)} ms) with ${echo.errors} errors (non-2xx answers, socket errors, time-outs); bare node:http p99 ${p99(targets.bare).toFixed(2)} ms`,
      },
      {
        name: "serve, Python echo integration",
        value: rate(targets.servePython),
        unit: "req/s",
        baseline: { value: rate(echo), label: "the same integration in JavaScript" },
        goal: { text: "0.5× the JavaScript echo or more", max: 2, of: "ratio" },
        note: `bass serve answers the same integration with Python cells at ${(rate(targets.servePython) / rate(echo)).toFixed(2)}× the requests per second of the JavaScript one, ${(rate(targets.servePython) / rate(targets.bare)).toFixed(2)}× bare node:http's (3 Python cells, in serve's worker threads, each holding its own Python runtime; ${load10}; rounds ${spread(targets.servePython)})`,
      },
      {
        name: "serve, live path to mock core",
        value: rate(live),
        unit: "req/s",
        baseline: { value: rate(targets.proxy), label: "undici proxy to mock core" },
        goal: { text: "0.5× the req/s or more", max: 2, of: "ratio" },
        note: `bass serve of the samples answers ${(rate(live) / rate(targets.proxy)).toFixed(2)}× the requests per second of a node:http server forwarding the same GET to the same mock core with an undici Pool (GET /api/v1/core-processor/customers?customer_id=P000001: serve → http adapter → bass mockcore, each in a process of its own; ${load10}; serve rounds ${spread(live)}; proxy ${spread(targets.proxy)})`,
      },
      {
        name: "serve live path, CPU a request",
        value: cpuMs(live),
        baseline: { ms: cpuMs(targets.proxy), label: "undici proxy to mock core" },
        goal: { text: "0.4× the proxy's or better (2.5×)", max: 2.5, of: "ratio" },
        note: `bass serve of the samples spends ${(cpuMs(live) / cpuMs(targets.proxy)).toFixed(2)}× the CPU a request of the undici proxy, all threads of each process (the mock core's own CPU counts for neither: serve ${cpuPerRequest(live)}; proxy ${cpuPerRequest(targets.proxy)})`,
      },
    ];
  } finally {
    await Promise.all(children.map((child) => child.stop()));
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Loads `target` with autocannon for `seconds`; when `record`, adds its rate of 2xx answers, its errors
 * and (for a target that keeps them) every response's time in ms to the target.
 */
async function load(target, seconds, record) {
  const { path, ...request } = target.request;
  const run = autocannon({ url: target.url + path, ...request, connections: CONNECTIONS, duration: seconds });
  if (record && target.latencies) {
    run.on("response", (_client, _status, _bytes, responseTime) => target.latencyMs.push(responseTime));
  }
  const cpuBefore = cpuNs(target.pid);
  const result = await run;
  if (!record) return;
  const cpuAfter = cpuNs(target.pid);
  target.cpuNs += cpuAfter.total - cpuBefore.total;
  target.mainNs += cpuAfter.main - cpuBefore.main;
  target.answered += result.requests.total;
  target.rates.push(result["2xx"] / result.duration);
  target.errors += result.non2xx + result.errors;
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) {
    if (!status.startsWith("2")) target.statuses[status] = (target.statuses[status] ?? 0) + count;
  }
  if (result.errors) target.statuses.socket = (target.statuses.socket ?? 0) + result.errors;
}

/**
 * The CPU time process `pid` has used so far, in ns, over all its threads and on its main thread alone
 * (Linux's schedstat: exact, where `/proc/<pid>/stat` counts 10 ms ticks); NaN where there is no such file.
 */
function cpuNs(pid) {
  try {
    let total = 0;
    let main = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const ns = Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
      total += ns;
      if (task === String(pid)) main = ns;
    }
    return { total, main };
  } catch {
    return { total: Number.NaN, main: Number.NaN };
  }
}

/**
 * The server's CPU per answered request in µs, and its main thread's share (the HTTP thread, where serve
 * runs integrations in workers), as a note's clause; nothing where it was not measured.
 */
function cpuPerRequest(target) {
  const us = target.cpuNs / target.answered / 1000;
  const mainUs = target.mainNs / target.answered / 1000;
  return Number.isFinite(us)
    ? `${us.toFixed(0)} µs of CPU a request, ${mainUs.toFixed(0)} µs on its main thread`
    : undefined;
}

/** The `fraction` percentile of `values` (nearest rank). */
function percentile(values, fraction) {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

/** Fails the bench unless one request to `url` answers `status` with a JSON body that `check` accepts. */
async function expectAnswer(url, { path, ...request }, status, check) {
  const response = await fetch(url + path, request);
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {}
  if (response.status !== status || !check(body)) {
    throw new Error(
      `${request.method} ${url + path} answered ${response.status}, not as expected:\n${text.slice(0, 4000)}`,
    );
  }
}

/**
 * Starts `node ARGS` with its stdout and stderr going to files in `dir` (serve logs every request: a file
 * takes them without this process having to read them) and resolves once it prints `listening on URL`.
 * `stop()` sends SIGTERM and waits for the exit (SIGKILL after 10 s).
 */
async function startChild(name, args, { dir, env = {} }) {
  const outFile = join(dir, `${name}.out`);
  const errFile = join(dir, `${name}.err`);
  const out = openSync(outFile, "w");
  const err = openSync(errFile, "w");
  let child;
  try {
    child = spawn(process.execPath, args, { stdio: ["ignore", out, err], env: { ...process.env, ...env } });
  } finally {
    closeSync(out);
    closeSync(err);
  }
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (!running()) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const output = () => `${readFileSync(outFile, "utf8")}${readFileSync(errFile, "utf8")}`.slice(0, 4000);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(readFileSync(outFile, "utf8"))?.[1];
    if (url) return { url, pid: child.pid, stop };
    if (!running() || Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not start: node ${args.join(" ")}\n${output()}`);
    }
    await sleep(20);
  }
}
