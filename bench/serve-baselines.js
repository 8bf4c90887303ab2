// The baselines of the serve bench, each a child process of its own like the servers it is compared with:
//   node bench/serve-baselines.js bare            a bare node:http server answering what bench.serve answers
//   node bench/serve-baselines.js proxy CORE_URL  a node:http server that forwards customers.retrieve's GET
//                                                 to the core with an undici Pool and returns the core's JSON
// Each listens on a free port of 127.0.0.1, prints `listening on URL` as serve does, and stops on SIGTERM.
import { createServer } from "node:http";
import { Pool } from "undici";

const [kind, coreUrl] = process.argv.slice(2);
const json = { "content-type": "application/json; charset=utf-8" };

/** Reads the whole body, parses it, answers 201 with the JSON that bench.serve's on_success_hook builds. */
function bare(request, response) {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    send(response, 201, { first_name: input.first_name.trim(), email: input.email });
  });
}

const pool = kind === "proxy" ? new Pool(coreUrl) : undefined;

/** GET /…?customer_id=ID → GET /core/v1/persons/ID on the core; its status and JSON as they are. */
async function proxy(request, response) {
  try {
    const id = new URL(request.url, "http://proxy.invalid").searchParams.get("customer_id") ?? "";
    const answer = await pool.request({
      method: "GET",
      path: `/core/v1/persons/${encodeURIComponent(id)}`,
      headers: { accept: "application/json", authorization: "Bearer dev" },
    });
    send(response, answer.statusCode, await answer.body.json());
  } catch {
    response.writeHead(502).end();
  }
}

function send(response, status, payload) {
  const body = JSON.stringify(payload);
  response.writeHead(status, { ...json, "content-length": Buffer.byteLength(body) });
  response.end(body);
}

if (kind !== "bare" && !(kind === "proxy" && coreUrl)) {
  console.error("usage: node bench/serve-baselines.js bare | proxy CORE_URL");
  process.exit(2);
}
const server = createServer(kind === "bare" ? bare : proxy);
server.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close();
  void pool?.close();
});
