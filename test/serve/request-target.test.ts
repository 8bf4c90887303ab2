import fc from "fast-check";
import { describe, expect, it, onTestFinished } from "vitest";
import { echoAdapter } from "../../src/adapters/echo.js";
import { createServeApp } from "../../src/serve/app.js";
import { startServer } from "../../src/serve/server.js";
import { parseRequestTarget } from "../../src/serve/target.js";
import { createTempDir } from "../_helpers.js";
import { sendRaw } from "./_raw-http.js";

async function createTargetHandler() {
  const dir = createTempDir({
    "bass.config.yaml": "{}\n",
    "integrations/a.yaml": "name: a\nendpoints:\n  - { method: GET, path: /a }\n",
  });
  const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir, adapters: () => echoAdapter });
  onTestFinished(() => app.close());
  return app.handle;
}

describe("the request target", () => {
  it.each([
    ["an absolute-form target that is no URL", "http://[/a", 400],
    ["an absolute-form target with a bad port", "http://a:b@[::1]:99999/a", 400],
    ["an absolute-form target with a bad host", "http://%zz/a", 400],
    ["a path that starts with // (a path, never a host)", "//127.0.0.1/_bass/health", 404],
    ["a path that starts with // and names an endpoint", "//x/a", 404],
    ["an absolute URL (read as its path)", "http://127.0.0.1/a", 200],
  ])("%s is answered, by the handler and over a socket", async (_name, target, status) => {
    const handle = await createTargetHandler();
    const handled = await handle({
      method: "GET",
      url: target,
      headers: { host: "127.0.0.1:3000" },
      body: new Uint8Array(),
    });
    expect(handled.status).toBe(status);
    if (status >= 400) expect(handled.headers["content-type"]).toBe("application/problem+json");

    const unexpected: unknown[] = [];
    const server = await startServer({
      host: "127.0.0.1",
      port: 0,
      bodyLimitBytes: 1024,
      handle,
      log: () => {},
      logError: (error) => unexpected.push(error),
    });
    try {
      const port = Number(new URL(server.url).port);
      const request = `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
      const answer = await sendRaw(port, Buffer.from(request, "latin1"));
      expect(answer).toMatchObject({ kind: "response", status });
    } finally {
      await server.close();
    }
    expect(unexpected).toEqual([]);
  });
});

describe("parseRequestTarget", () => {
  // Characters the URL parser treats specially in a path or a query, and plain ones.
  const piece = fc.constantFrom(
    ..."aZ09-_~!$&'()*+,;=:@/?#%.\\ \"<>`{}|^[]é".split(""),
    "%2e",
    "%2E",
    "%41",
    "%zz",
    "..",
    "/./",
    "/../",
    "//",
  );
  const target = fc.array(piece, { maxLength: 12 }).map((pieces) => `/${pieces.join("")}`);

  it("reads any path as the URL parser does, with or without its fast path", () => {
    fc.assert(
      fc.property(target, (text) => {
        const read = parseRequestTarget(text);
        const url = new URL(`http://bass.invalid${text}`);
        expect(read?.pathname).toBe(url.pathname);
        expect(read?.search).toBe(url.search);
        expect([...(read?.searchParams ?? [])]).toEqual([...url.searchParams]);
      }),
      { numRuns: 3000 },
    );
  });

  it("takes plain targets without the URL parser", () => {
    expect(parseRequestTarget("/api/v1/customers?customer_id=P1&x=a.b")).not.toBeInstanceOf(URL);
    expect(parseRequestTarget("/a/./b")).toBeInstanceOf(URL);
    expect(parseRequestTarget("/a/%2E%2e/b")).toBeInstanceOf(URL);
  });
});
