import { describe, expect, it } from "vitest";
import { parseYamlSource } from "../../src/definition/yaml-source.js";

const firstMessage = (text: string) => parseYamlSource("a.yaml", text).issues[0]?.message ?? "";

describe("YAML syntax errors", () => {
  it.each([
    ["a tab as indentation", "name: a\nservice_requests:\n\t- x: 1\n", "indent with spaces"],
    [
      "a value that holds ': '",
      "name: a\ndescription: Retrieve: a customer\n",
      'a value that holds ": " needs quotes',
    ],
    ["a value that ends in ':'", "systems:\n  core:\n    base_url: mockcore:\n", 'quote it: "mockcore:"'],
    [
      "a value that starts with {",
      "name: a\nrule: {x} is fine\n",
      "starts with { or [ is read as a map or a list",
    ],
    [
      "a value that starts with [",
      "name: a\nmessage: [tag] text\n",
      "starts with { or [ is read as a map or a list",
    ],
    ["an unclosed quote", 'name: "a\nother: 1\n', "close the quote"],
    ["a key indented too far", "name: a\n  other: 1\n", "check the indentation"],
    [
      "a key glued to its value",
      "name: a\nservice_requests:\n  - system: core\n    service_name:create-person\n    field_mappings: []\n",
      'put a space after the colon to make a key and its value: "service_name: create-person"',
    ],
    [
      "an unclosed quote that a later quote closes",
      'name: a\ndescription: "Create a customer\nrules:\n  - rule: "/^\\d+$/.test(_)"\n',
      "close the quote",
    ],
  ])("carry advice for %s", (_, text, advice) => {
    const message = firstMessage(text);
    expect(message).toContain(advice);
    // The parser's own words stay first.
    expect(message.split("; ")[0]?.length).toBeGreaterThan(10);
  });

  it.each([
    ['name: a\ndescription: "Create a customer\nrules:\n  - rule: "/^\\d+$/.test(_)"\n', 2],
    [
      "name: a\nservice_requests:\n  - system: core\n    service_name:create-person\n    field_mappings: []\n",
      4,
    ],
  ])("stand at the line of the mistake, not where the parser gave up (%#)", (text, line) => {
    expect(parseYamlSource("a.yaml", text).issues[0]?.line).toBe(line);
  });

  it("carry no advice where there is none to give", () => {
    expect(firstMessage("a: 1\na: 2\n")).not.toContain("; ");
  });
});
