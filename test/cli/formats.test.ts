import sarifSchema from "@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json" with { type: "json" };
import { Ajv } from "ajv";
import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import {
  createCodeFrame,
  escapeXml,
  escapeXmlAttribute,
  type FormatIssueReportOptions,
  formatGithub,
  formatIssueReport,
  formatJson,
  formatJunit,
  formatSarif,
  formatText,
  type IssueFormat,
} from "../../src/cli/formats/index.js";
import type { Issue } from "../../src/definition/issue.js";

const customers = [
  "name: customers.create",
  "endpoint:",
  "  methd: POST",
  "  path: /customers",
  "service_requests:",
  "  - formula_variable: core",
  "    system: corebank",
  "",
].join("\n");

const accounts = ["name: accounts.get", "headers:", "  authorization: Bearer abc123secret", ""].join("\n");

const issues: Issue[] = [
  {
    file: "samples/accounts.yaml",
    line: 3,
    column: 18,
    severity: "warning",
    rule: "secret-literal",
    message: "This looks like a credential; take it from the environment.",
  },
  {
    file: "samples/customers.yaml",
    line: 3,
    column: 3,
    severity: "error",
    rule: "schema-unknown-key",
    message: 'Unknown key "methd".',
  },
  {
    file: "samples/customers.yaml",
    line: 7,
    column: 13,
    severity: "error",
    rule: "unknown-system",
    message: 'System "corebank" is not in the project file.',
  },
];

const options: FormatIssueReportOptions = {
  sources: new Map([
    ["samples/customers.yaml", customers],
    ["samples/accounts.yaml", accounts],
  ]),
  color: false,
  toolVersion: "0.1.0",
  filesChecked: ["samples/accounts.yaml", "samples/customers.yaml", "samples/payments.yaml"],
};

function issue(overrides: Partial<Issue>): Issue {
  return {
    file: "a.yaml",
    line: 1,
    column: 1,
    severity: "error",
    rule: "schema-type",
    message: "m",
    ...overrides,
  };
}

describe("formatIssueReport", () => {
  it.each<[IssueFormat, (found: readonly Issue[], given: FormatIssueReportOptions) => string]>([
    ["text", formatText],
    ["json", formatJson],
    ["sarif", formatSarif],
    ["junit", formatJunit],
    ["github", formatGithub],
  ])("renders %s with its formatter", (format, formatter) => {
    expect(formatIssueReport(format, issues, options)).toBe(formatter(issues, options));
  });
});

describe("text", () => {
  it("groups findings by file with code frames and a summary", () => {
    expect(formatText(issues, options)).toMatchInlineSnapshot(`
      "samples/accounts.yaml
        3:18  warning  This looks like a credential; take it from the environment.  secret-literal
            2 | headers:
          > 3 |   authorization: Bearer abc123secret
              |                  ^
            4 |

      samples/customers.yaml
        3:3   error  Unknown key "methd".  schema-unknown-key
            2 | endpoint:
          > 3 |   methd: POST
              |   ^
            4 |   path: /customers

        7:13  error  System "corebank" is not in the project file.  unknown-system
            6 |   - formula_variable: core
          > 7 |     system: corebank
              |             ^
            8 |

      ✖ 3 problems (2 errors, 1 warning) in 2 of 3 files
      "
    `);
  });

  it("prints no ANSI codes when color is false, and colours when it is true", () => {
    expect(formatText(issues, options)).not.toContain("\u001b[");
    expect(formatText([], options)).not.toContain("\u001b[");
    expect(formatText(issues, { ...options, color: true })).toContain("\u001b[31m");
  });

  it.each([
    [[], "✔ 3 files checked, no problems"],
    [[issue({ severity: "warning" })], "✖ 1 problem (0 errors, 1 warning) in 1 of 4 files"],
    [[issue({}), issue({ line: 2 })], "✖ 2 problems (2 errors, 0 warnings) in 1 of 4 files"],
  ])("ends with the summary line %#", (found, summary) => {
    expect(formatText(found, options).trimEnd().split("\n").at(-1)).toBe(summary);
  });

  it("prints no frame under a sensitive finding, which would show the secret again", () => {
    const [secret] = issues;
    const output = formatText([{ ...(secret as Issue), sensitive: true }], options);
    expect(output).toContain("secret-literal");
    expect(output).not.toContain("abc123secret");
  });

  it("hides a sensitive finding's line from the frames of its neighbours too", () => {
    const [secret] = issues;
    const neighbour = {
      ...(secret as Issue),
      line: 2,
      column: 1,
      rule: "schema-type" as const,
      message: "bad",
    };
    const output = formatText([neighbour, { ...(secret as Issue), sensitive: true }], options);
    expect(output).toContain("> 2 | headers:");
    expect(output).toContain("3 | (hidden: it holds a secret)");
    expect(output).not.toContain("abc123secret");
  });

  it("prints no frame for a file missing from sources", () => {
    const output = formatText([issue({ file: "missing.yaml" })], options);
    expect(output).not.toContain("|");
  });
});

describe("createCodeFrame", () => {
  const plain = { gutter: (text: string) => text, mark: (text: string) => text };

  it.each([
    [
      "the first line, without a line before",
      "a: 1\nb: 2\nc: 3",
      1,
      4,
      ["    > 1 | a: 1", "        |    ^", "      2 | b: 2"],
    ],
    [
      "a line in the middle, with context each side",
      "a: 1\nbb: 2\nc: 3",
      2,
      5,
      ["      1 | a: 1", "    > 2 | bb: 2", "        |     ^", "      3 | c: 3"],
    ],
    [
      "the caret after tabs, keeping them",
      "x\n\t\tkey: 1",
      2,
      3,
      ["      1 | x", "    > 2 | \t\tkey: 1", "        | \t\t^"],
    ],
    [
      "a column past the end of a short line",
      "ab\ncd",
      1,
      40,
      ["    > 1 | ab", "        |   ^", "      2 | cd"],
    ],
    [
      "an empty line without trailing spaces",
      "a\n\nb",
      2,
      1,
      ["      1 | a", "    > 2 |", "        | ^", "      3 | b"],
    ],
    ["CRLF line ends", "a\r\nb\r\nc", 3, 1, ["      2 | b", "    > 3 | c", "        | ^"]],
    ["nothing for a line past the end of the file", "a\nb", 9, 1, []],
    ["nothing for line 0", "a", 0, 1, []],
  ])("frames %s", (_name, source, line, column, expected) => {
    expect(createCodeFrame(source, line, column, plain)).toEqual(expected);
  });

  it("widens the gutter for two-digit line numbers", () => {
    const source = Array.from({ length: 10 }, (_, index) => `l${index + 1}`).join("\n");
    expect(createCodeFrame(source, 9, 1, plain)).toEqual([
      "       8 | l8",
      "    >  9 | l9",
      "         | ^",
      "      10 | l10",
    ]);
  });
});

describe("json", () => {
  it("prints the summary and the findings", () => {
    expect(formatJson(issues, options)).toMatchInlineSnapshot(`
      "{
        "summary": {
          "files": 3,
          "errors": 2,
          "warnings": 1
        },
        "findings": [
          {
            "file": "samples/accounts.yaml",
            "line": 3,
            "column": 18,
            "severity": "warning",
            "rule": "secret-literal",
            "message": "This looks like a credential; take it from the environment."
          },
          {
            "file": "samples/customers.yaml",
            "line": 3,
            "column": 3,
            "severity": "error",
            "rule": "schema-unknown-key",
            "message": "Unknown key \\"methd\\"."
          },
          {
            "file": "samples/customers.yaml",
            "line": 7,
            "column": 13,
            "severity": "error",
            "rule": "unknown-system",
            "message": "System \\"corebank\\" is not in the project file."
          }
        ]
      }
      "
    `);
  });
});

describe("sarif", () => {
  // The schema says draft-04, but the keywords it uses mean the same in draft-07, which ajv v8 speaks. Its
  // language-tag pattern has a stray `]` that only a unicode RegExp rejects, so patterns compile as plain ones.
  const { $schema: _draft, id: _id, ...schema } = sarifSchema;
  const validate = new Ajv({
    strict: false,
    allErrors: true,
    unicodeRegExp: false,
    formats: {
      uri: (text: string) => URL.canParse(text),
      // The URL parser would quietly encode a space or a backslash; a URI reference may not hold them at all.
      "uri-reference": (text: string) => URL.canParse(text, "file:///") && !/[\s"<>\\^`{|}]/.test(text),
      "date-time": true,
    },
  }).compile(schema);

  it("prints one run with the rules that were found", () => {
    expect(formatSarif(issues, options)).toMatchInlineSnapshot(`
      "{
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
          {
            "tool": {
              "driver": {
                "name": "bass",
                "version": "0.1.0",
                "rules": [
                  {
                    "id": "schema-unknown-key",
                    "shortDescription": {
                      "text": "A key that the schema does not know (the schema is closed, so typos never pass)."
                    },
                    "fullDescription": {
                      "text": "A key the schema does not know. The schemas are closed, so a typo never passes silently."
                    },
                    "help": {
                      "text": "Correct the key's spelling (the message suggests the nearest known key), or remove it."
                    },
                    "defaultConfiguration": {
                      "level": "error"
                    }
                  },
                  {
                    "id": "unknown-system",
                    "shortDescription": {
                      "text": "A service request names a system that the project file does not have."
                    },
                    "fullDescription": {
                      "text": "A service request names a system that the project file does not have."
                    },
                    "help": {
                      "text": "Add the system under \`systems:\` in the project file, or use one it has."
                    },
                    "defaultConfiguration": {
                      "level": "error"
                    }
                  },
                  {
                    "id": "secret-literal",
                    "shortDescription": {
                      "text": "A literal that looks like a secret; take it from the environment with \${env:NAME}."
                    },
                    "fullDescription": {
                      "text": "A literal that looks like a credential: an auth header, serve's tokens and passwords, a password in a URL, or a well-known key shape."
                    },
                    "help": {
                      "text": "Take the value from the environment with \`\${env:NAME}\`, and rotate the credential if it was committed."
                    },
                    "defaultConfiguration": {
                      "level": "warning"
                    }
                  }
                ]
              }
            },
            "columnKind": "utf16CodeUnits",
            "results": [
              {
                "ruleId": "secret-literal",
                "ruleIndex": 2,
                "level": "warning",
                "message": {
                  "text": "This looks like a credential; take it from the environment."
                },
                "locations": [
                  {
                    "physicalLocation": {
                      "artifactLocation": {
                        "uri": "samples/accounts.yaml",
                        "uriBaseId": "%SRCROOT%"
                      },
                      "region": {
                        "startLine": 3,
                        "startColumn": 18
                      }
                    }
                  }
                ]
              },
              {
                "ruleId": "schema-unknown-key",
                "ruleIndex": 0,
                "level": "error",
                "message": {
                  "text": "Unknown key \\"methd\\"."
                },
                "locations": [
                  {
                    "physicalLocation": {
                      "artifactLocation": {
                        "uri": "samples/customers.yaml",
                        "uriBaseId": "%SRCROOT%"
                      },
                      "region": {
                        "startLine": 3,
                        "startColumn": 3
                      }
                    }
                  }
                ]
              },
              {
                "ruleId": "unknown-system",
                "ruleIndex": 1,
                "level": "error",
                "message": {
                  "text": "System \\"corebank\\" is not in the project file."
                },
                "locations": [
                  {
                    "physicalLocation": {
                      "artifactLocation": {
                        "uri": "samples/customers.yaml",
                        "uriBaseId": "%SRCROOT%"
                      },
                      "region": {
                        "startLine": 7,
                        "startColumn": 13
                      }
                    }
                  }
                ]
              }
            ]
          }
        ]
      }
      "
    `);
  });

  it.each([
    ["the fixture findings", issues],
    ["no findings", []],
    ["odd paths", [issue({ file: "dir\\a b#1.yaml" }), issue({ file: "/abs/x.yaml", severity: "warning" })]],
  ])("is valid against the SARIF 2.1.0 schema for %s", (_name, found) => {
    const log: unknown = JSON.parse(formatSarif(found, options));
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it("catches an invalid log, so the schema check means something", () => {
    const log = JSON.parse(formatSarif(issues, options));
    log.runs[0].results[0].level = "fatal";
    expect(validate(log)).toBe(false);
  });

  it.each([
    ["samples/a.yaml", { uri: "samples/a.yaml", uriBaseId: "%SRCROOT%" }],
    ["./samples\\a b#1.yaml", { uri: "samples/a%20b%231.yaml", uriBaseId: "%SRCROOT%" }],
    ["/abs/x.yaml", { uri: "file:///abs/x.yaml" }],
  ])("locates %s", (file, artifactLocation) => {
    const log = JSON.parse(formatSarif([issue({ file })], options));
    expect(log.runs[0].results[0].locations[0].physicalLocation.artifactLocation).toEqual(artifactLocation);
  });

  it("points each result's ruleIndex at its rule", () => {
    const run = JSON.parse(formatSarif(issues, options)).runs[0];
    for (const result of run.results) expect(run.tool.driver.rules[result.ruleIndex].id).toBe(result.ruleId);
  });
});

describe("junit", () => {
  it("prints one testsuite per checked file", () => {
    expect(formatJunit(issues, options)).toMatchInlineSnapshot(`
      "<?xml version="1.0" encoding="UTF-8"?>
      <testsuites name="bass validate" tests="4" failures="2" errors="0">
        <testsuite name="samples/accounts.yaml" tests="1" failures="0" errors="0">
          <testcase classname="samples/accounts.yaml" name="secret-literal at 3:18">
            <system-out>samples/accounts.yaml:3:18 This looks like a credential; take it from the environment.</system-out>
          </testcase>
        </testsuite>
        <testsuite name="samples/customers.yaml" tests="2" failures="2" errors="0">
          <testcase classname="samples/customers.yaml" name="schema-unknown-key at 3:3">
            <failure message="Unknown key &quot;methd&quot;." type="error">samples/customers.yaml:3:3 Unknown key &quot;methd&quot;.</failure>
          </testcase>
          <testcase classname="samples/customers.yaml" name="unknown-system at 7:13">
            <failure message="System &quot;corebank&quot; is not in the project file." type="error">samples/customers.yaml:7:13 System &quot;corebank&quot; is not in the project file.</failure>
          </testcase>
        </testsuite>
        <testsuite name="samples/payments.yaml" tests="1" failures="0" errors="0">
          <testcase classname="samples/payments.yaml" name="no problems"/>
        </testsuite>
      </testsuites>
      "
    `);
  });

  it("counts tests and failures as the testcases show them", () => {
    const xml = formatJunit(issues, options);
    expect(xml).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="bass validate" tests="4" failures="2" errors="0">/,
    );
    expect(xml.match(/<testcase /g)).toHaveLength(4);
    expect(xml.match(/<failure /g)).toHaveLength(2);
    expect(xml.match(/<testsuite /g)).toHaveLength(3);
    expect(xml).toContain('<testsuite name="samples/payments.yaml" tests="1" failures="0" errors="0">');
  });

  it("fails warnings too under --strict", () => {
    const xml = formatJunit(issues, { ...options, strict: true });
    expect(xml).toMatch(/<testsuites name="bass validate" tests="4" failures="3" errors="0">/);
    expect(xml).toContain(
      '<failure message="This looks like a credential; take it from the environment." type="warning">',
    );
    expect(xml).not.toContain("<system-out>");
  });

  it("escapes markup and drops characters XML cannot hold", () => {
    const xml = formatJunit([issue({ file: "a&b.yaml", message: `bad <&"'> \u0001value\uFFFF` })], {
      filesChecked: [],
    });
    expect(xml).toContain('message="bad &lt;&amp;&quot;&apos;&gt; value"');
    expect(xml).toContain(">a&amp;b.yaml:1:1 bad &lt;&amp;&quot;&apos;&gt; value</failure>");
    expect(xml).not.toContain("\u0001");
    expect(xml).not.toContain("\uFFFF");
    // Every `&` left must start an entity, and no `<` may sit inside an attribute value.
    expect(xml).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;)/);
    expect(xml).not.toMatch(/="[^"]*</);
  });
});

describe("escapeXml", () => {
  it.each([
    ["plain", "plain"],
    [`<a href="x">&'`, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;"],
    ["keeps\ttab\nnewline\rreturn", "keeps\ttab\nnewline\rreturn"],
    ["drops\u0000nul\u001fand\u000bvt", "dropsnulandvt"],
    ["drops a lone \uD800surrogate and \uFFFE", "drops a lone surrogate and "],
    ["keeps ü, € and 😀", "keeps ü, € and 😀"],
  ])("escapes %j", (text, expected) => {
    expect(escapeXml(text)).toBe(expected);
  });
});

describe("escapeXmlAttribute", () => {
  it("keeps tabs and line breaks as character references, which attribute-value normalization leaves alone", () => {
    expect(escapeXmlAttribute('a\tb\nc\rd "e"')).toBe("a&#9;b&#10;c&#13;d &quot;e&quot;");
  });

  it("reads back as the same text through an XML parser", () => {
    const text = "line one\n\tindented <x> & 'y'";
    const parsed = new XMLParser({ ignoreAttributes: false, htmlEntities: true }).parse(
      `<a b="${escapeXmlAttribute(text)}"/>`,
    );
    expect(parsed.a["@_b"]).toBe(text);
  });
});

describe("github", () => {
  it("prints one workflow command per finding", () => {
    expect(formatGithub(issues)).toMatchInlineSnapshot(`
      "::warning file=samples/accounts.yaml,line=3,col=18,title=secret-literal::This looks like a credential; take it from the environment.
      ::error file=samples/customers.yaml,line=3,col=3,title=schema-unknown-key::Unknown key "methd".
      ::error file=samples/customers.yaml,line=7,col=13,title=unknown-system::System "corebank" is not in the project file.
      "
    `);
  });

  it.each([
    [
      "a newline in the message",
      issue({ message: "line one\nline two\r" }),
      "::error file=a.yaml,line=1,col=1,title=schema-type::line one%0Aline two%0D",
    ],
    [
      "a comma and colon in the file",
      issue({ file: "c:/a,b.yaml" }),
      "::error file=c%3A/a%2Cb.yaml,line=1,col=1,title=schema-type::m",
    ],
    [
      "a percent sign, escaped first",
      issue({ file: "%0A.yaml", message: "100%0A" }),
      "::error file=%250A.yaml,line=1,col=1,title=schema-type::100%250A",
    ],
    [
      "colons and commas kept in the message",
      issue({ severity: "warning", message: "a: b, c" }),
      "::warning file=a.yaml,line=1,col=1,title=schema-type::a: b, c",
    ],
  ])("escapes %s", (_name, found, expected) => {
    expect(formatGithub([found])).toBe(`${expected}\n`);
  });

  it("prints nothing when there is nothing to annotate", () => {
    expect(formatGithub([])).toBe("");
  });
});
