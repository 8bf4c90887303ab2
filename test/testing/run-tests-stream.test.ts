import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { openProjectFiles } from "../../src/project/open-files.js";
import { runTests } from "../../src/testing/run-tests.js";
import { createTempDir } from "../_helpers.js";

const calm = 'name: calm\non_success_hook: "output.payload = { calm: true }"\n';
const passing = (integration: string, ...names: string[]) =>
  `integration: ${integration}\ncases:\n${names.map((name) => `  - name: ${name}\n    expect: { state: success }\n`).join("")}`;

describe("runTests reports each test file as it finishes", () => {
  it("reports a file before the next file's cases start, one case at a time", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/calm.yaml": calm,
      "tests/a.test.yaml": passing("calm", "a1", "a2"),
      "tests/b.test.yaml": passing("calm", "b1"),
    });
    const { project } = openProjectFiles({ cwd: dir, env: {} });
    const events: string[] = [];
    await runTests({
      project,
      cwd: dir,
      env: {},
      files: ["a", "b"].map((name) => join(dir, "tests", `${name}.test.yaml`)),
      concurrency: 1,
      workers: 0,
      onCaseDone: (done) => events.push(`case ${done}`),
      onFileDone: (results) => events.push(`file ${results.map((result) => result.name).join(",")}`),
    });
    expect(events).toEqual(["case 1", "case 2", "file a1,a2", "case 3", "file b1"]);
  });

  it("keeps file order when a later file finishes first, and reports each file once", async () => {
    // File a's case waits on a system that answers only once file b's case is done.
    const held: ServerResponse[] = [];
    let released = false;
    const server = createServer((_request, response) => {
      held.push(response);
      if (released) release();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    const release = () => {
      released = true;
      for (const response of held.splice(0))
        response.writeHead(200, { "content-type": "application/json" }).end('{"slow":true}');
    };
    const dir = createTempDir({
      "bass.config.yaml": `systems:\n  slow:\n    adapter: http\n    base_url: http://127.0.0.1:${port}\n`,
      "integrations/calm.yaml": calm,
      "integrations/slow.yaml":
        "name: slow\nservice_requests:\n  - formula_variable: call\n    sequence: 10\n    system: slow\n    service_name: wait\n    field_mappings:\n      - { field: service_path, literal: /wait }\n      - { field: method, literal: GET }\n",
      "tests/a.test.yaml": passing("slow", "a1"),
      "tests/b.test.yaml": passing("calm", "b1", "b2"),
    });
    const { project } = openProjectFiles({ cwd: dir, env: {} });
    const events: string[] = [];
    const { blocked } = await runTests({
      project,
      cwd: dir,
      env: {},
      files: ["a", "b"].map((name) => join(dir, "tests", `${name}.test.yaml`)),
      concurrency: 2,
      workers: 0,
      onCaseDone: (done) => {
        events.push(`case ${done}`);
        if (done === 2) release();
      },
      onFileDone: (results) => events.push(`file ${results.map((result) => result.name).join(",")}`),
    });
    expect(blocked).toEqual([]);
    expect(events).toEqual(["case 1", "case 2", "case 3", "file a1", "file b1,b2"]);
  });

  it("reports no file whose cases were all left out", async () => {
    const dir = createTempDir({
      "bass.config.yaml": "systems: {}\n",
      "integrations/calm.yaml": calm,
      "tests/a.test.yaml": passing("calm", "a1"),
      "tests/b.test.yaml": passing("calm", "b1"),
    });
    const { project } = openProjectFiles({ cwd: dir, env: {} });
    const reported: string[][] = [];
    await runTests({
      project,
      cwd: dir,
      env: {},
      files: ["a", "b"].map((name) => join(dir, "tests", `${name}.test.yaml`)),
      workers: 0,
      only: (_file, name) => name === "b1",
      onFileDone: (results) => reported.push(results.map((result) => result.name)),
    });
    expect(reported).toEqual([["b1"]]);
  });
});
