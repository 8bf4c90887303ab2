import { describe, expect, it } from "vitest";
import { createProblem, problemResponse, reasonPhrase } from "../../src/serve/problem.js";

describe("createProblem", () => {
  it.each([
    [400, "Bad Request"],
    [401, "Unauthorized"],
    [404, "Not Found"],
    [405, "Method Not Allowed"],
    [409, "Conflict"],
    [413, "Content Too Large"],
    [415, "Unsupported Media Type"],
    [422, "Unprocessable Content"],
    [500, "Internal Server Error"],
    [503, "Service Unavailable"],
    [499, "Client Error"],
    [599, "Server Error"],
  ])("titles status %i %j", (status, title) => {
    expect(reasonPhrase(status)).toBe(title);
    expect(createProblem(status, "what happened")).toEqual({
      type: "about:blank",
      title,
      status,
      detail: "what happened",
    });
  });

  it("keeps the errors when there are some, and leaves the member out when there are none", () => {
    const errors = [
      { pointer: "#/email", message: "must be string" },
      { message: "must have required property 'x'" },
    ];
    expect(createProblem(400, "body does not match", errors).errors).toEqual(errors);
    expect(createProblem(400, "body does not match", [])).not.toHaveProperty("errors");
    expect(createProblem(400, "body does not match")).not.toHaveProperty("errors");
  });
});

describe("problemResponse", () => {
  it("answers with the problem's status as application/problem+json", () => {
    const problem = createProblem(404, "no endpoint at /x");
    const response = problemResponse(problem);
    expect(response.status).toBe(404);
    expect(response.headers).toEqual({ "content-type": "application/problem+json" });
    expect(JSON.parse(String(response.body))).toEqual(problem);
  });

  it.each([
    [{ Allow: "GET, POST" }, { allow: "GET, POST" }],
    [{ "Retry-After": "1" }, { "retry-after": "1" }],
    [{ "WWW-Authenticate": 'Bearer realm="bass"' }, { "www-authenticate": 'Bearer realm="bass"' }],
    [{ "Content-Type": "text/plain" }, {}],
  ])("adds %j with lower-case names and never another content type", (extra, expected) => {
    const response = problemResponse(createProblem(405, "x"), extra);
    expect(response.headers).toEqual({ ...expected, "content-type": "application/problem+json" });
  });
});
