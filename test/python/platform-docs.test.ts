// The platform's own reference (github.com/ncino/glyue-docs) is the contract for Python cells: each test
// runs one of its examples unchanged, and names the page it comes from.
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { stringify } from "yaml";
import { echoAdapter } from "../../src/adapters/echo.js";
import { runIntegration } from "../../src/engine/run.js";
import type { RunInput } from "../../src/engine/types.js";
import { openProjectFiles } from "../../src/project/open-files.js";
import { projectVaults } from "../../src/project/vaults.js";
import { loadPython } from "../../src/python/runtime.js";
import { createServeApp } from "../../src/serve/app.js";
import { createTempDir, runDefinition } from "../_helpers.js";

beforeAll(async () => {
  await loadPython();
}, 30_000);

/** A Python definition whose on_success_hook is `hook`. */
function python(hook: string): string {
  return stringify({ name: "py", language: "python", on_success_hook: hook });
}

async function outputOf(hook: string, project?: string, projectFiles?: Record<string, string>) {
  const result = await runDefinition(python(hook), { payload: {} }, { project, projectFiles });
  const failure = result.record.items.find((item) => item.kind === "FAILURE");
  if (failure?.kind === "FAILURE") throw new Error(failure.error.message);
  return result.output.payload;
}

/**
 * A project of `dir` with its vaults, whose integrations run on this thread against the echo adapter: a
 * Python cell opens a vault blocked, which a run on this thread can do.
 */
function withVaults(dir: string) {
  const env = { BASS_STATE_KEY: "7".repeat(64) };
  const { project } = openProjectFiles({ cwd: dir, env });
  const vaults = projectVaults(project, env);
  const run = async (name: string, input: RunInput) => {
    const loaded = project.definitions.find((definition) => definition.value.name === name);
    const result = await runIntegration(project.compile(loaded as never), input, {
      ...project.limits,
      adapters: () => echoAdapter,
      trigger: "test",
      secrets: [],
      vaults,
    });
    return result.output.payload;
  };
  return { run, vaults };
}

type ServeApp = Awaited<ReturnType<typeof createServeApp>>;

/**
 * serve over these integrations, each a definition or, as text, a Python on_success_hook (Python cells in
 * a worker: their calls need one), closed at the end.
 */
async function serve(integrations: Record<string, object | string>): Promise<ServeApp> {
  const files = Object.fromEntries(
    Object.entries(integrations).map(([name, definition]) => [
      `integrations/${name}.yaml`,
      stringify({
        name,
        endpoints: [{ method: "POST", path: `/${name}` }],
        ...(typeof definition === "string"
          ? { language: "python", on_success_hook: definition }
          : definition),
      }),
    ]),
  );
  const dir = createTempDir({
    "bass.config.yaml": stringify({ systems: { ECHO: { adapter: "echo" } }, serve: { workers: 1 } }),
    ...files,
  });
  const app = await createServeApp({ cwd: dir, env: {}, projectDir: dir });
  onTestFinished(() => app.close());
  return app;
}

async function post(app: ServeApp, path: string, payload: unknown = {}) {
  const reply = await app.handle({
    method: "POST",
    url: path,
    headers: { host: "127.0.0.1:3000", "content-type": "application/json" },
    body: Buffer.from(JSON.stringify(payload)),
  });
  return { status: reply.status, body: JSON.parse(Buffer.from(reply.body).toString()) as unknown };
}

describe("reference/special_functions/callint.md", () => {
  it("calls an integration with a payload, and with extended_payload its method too", async () => {
    const app = await serve({
      user: { on_success_hook: "output.payload = {'method': input.method, 'payload': input.payload}" },
      test_integration: { on_success_hook: "output.payload = {'got': input.payload}" },
      caller: [
        'payload = "input_str"',
        'x = callint("test_integration", payload)',
        "payload_with_method = {",
        '    "payload": {',
        '        "firstName": "Sally",',
        '        "lastName": "Smith",',
        "    },",
        '    "method": "POST"',
        "}",
        'y = callint("user", payload_with_method, extended_payload=True)',
        "output.payload = {'x': x.payload.unwrap(), 'y': y.payload.unwrap()}",
      ].join("\n"),
    });
    expect(await post(app, "/caller")).toEqual({
      status: 200,
      body: {
        x: { got: "input_str" },
        y: { method: "POST", payload: { firstName: "Sally", lastName: "Smith" } },
      },
    });
  }, 30_000);
});

describe("reference/special_functions/calladapter.md", () => {
  it("calls an adapter with label and payload as keywords, and reads response.success", async () => {
    const app = await serve({
      caller: [
        'x = calladapter("ECHO", "N/A", label="Internal adapter call", payload="x")',
        "",
        "if x.response.success == True:",
        '    historize("call_successful")',
        "output.payload = {'success': x.response.success, 'payload': x.response.payload}",
      ].join("\n"),
    });
    expect(await post(app, "/caller")).toEqual({ status: 200, body: { success: true, payload: "x" } });
  }, 30_000);

  it("takes label before payload when they are given in order", async () => {
    const app = await serve({
      caller: 'x = calladapter("ECHO", "N/A", "by position", {"a": 1})\noutput.payload = x.response.payload',
    });
    expect(await post(app, "/caller")).toEqual({ status: 200, body: { a: 1 } });
  }, 30_000);
});

describe("reference/special_functions/import_module.md", () => {
  const project = "systems: {}\nmodules:\n  my_module: modules/my_module.py\n";
  const files = {
    "modules/my_module.py": 'def test_function():\n    debug("called")\n    return "tested"\n',
  };

  it("binds the module under its name in the hook, and its code calls special functions", async () => {
    const hook = 'import_module("my_module")\nresult = my_module.test_function()\noutput.payload = result';
    expect(await outputOf(hook, project, files)).toBe("tested");
  });
});

describe("reference/special_functions/import_helper.md", () => {
  it("binds data_utils, and says the hosted platform's helpers are not bass's", async () => {
    expect(await outputOf('import_helper("data_utils")\noutput.payload = data_utils is not None')).toBe(true);
    await expect(outputOf('import_helper("ncino")\nncino.autobooking.fire_callback()')).rejects.toThrow(
      /import_helper\('ncino'\): that helper needs the hosted platform/,
    );
  });
});

describe("tutorials/building-a-restful-crud-web-service/5.-vault-code-examples-and-explanation.md", () => {
  it("updates a customer of the vault from a service request's response, as the tutorial's hook does", async () => {
    const hook = [
      "with open_vault('data') as vault:",
      "    customers = vault.get('customers')",
      "    customer = [customer for customer in customers if customer.id == input.path.id]",
      "",
      "    if customer:",
      "        customer[0].update(modify_customer.response.payload)",
      "        vault.update('customers', customers)",
      "        output.payload = customer[0]",
      "    else:",
      "        output.payload = f'There are no customers with an id of: {input.path.id}'",
    ].join("\n");
    const dir = createTempDir({
      "bass.config.yaml": stringify({
        systems: { echo: { adapter: "echo" } },
        vaults: {
          data: {
            items: {
              customers: [
                { id: "1", name: "Ada" },
                { id: "2", name: "Grace" },
              ],
            },
          },
        },
      }),
      "integrations/py.yaml": stringify({
        name: "py",
        language: "python",
        service_requests: [
          {
            formula_variable: "modify_customer",
            system: "echo",
            field_mappings: [{ field: "name", value: "input.payload.name" }],
          },
        ],
        on_success_hook: hook,
      }),
    });
    const { run, vaults } = withVaults(dir);
    const update = (id: string) => run("py", { path: { id }, payload: { name: "Grace Hopper" } });
    expect(await update("2")).toEqual({ id: "2", name: "Grace Hopper" });
    expect(await update("9")).toBe("There are no customers with an id of: 9");
    const held = await vaults.peek("data");
    expect(held.items.customers).toEqual([
      { id: "1", name: "Ada" },
      { id: "2", name: "Grace Hopper" },
    ]);
  });
});

describe("tutorials/building-a-basic-integration/get-hacker-news-stories.md", () => {
  it("gives Python's own list from unwrap(), which slices and dumps as JSON", async () => {
    const hook = [
      "import json",
      "ids = input.payload.ids.unwrap()[:input.payload.limitQuery or None]",
      "output.payload = {'list': isinstance(ids, list), 'json': json.dumps(ids), 'dict': isinstance(input.payload.unwrap(), dict)}",
    ].join("\n");
    const result = await runDefinition(python(hook), { payload: { ids: [5, 6, 7], limitQuery: 2 } });
    expect(result.output.payload).toEqual({ list: true, json: "[5, 6]", dict: true });
  });
});

describe("Python's ints (reference/special_variables/retvalue.md: a cell gives any Python value)", () => {
  it("answers an int past 2^53 with its exact digits", async () => {
    const result = await runDefinition(python('output.payload = {"n": 2**64, "m": -(2**70), "small": 5}'), {
      payload: {},
    });
    expect(result.status).toBe("success");
    expect(result.outputJson).toBe('{"n":18446744073709551616,"m":-1180591620717411303424,"small":5}');
  });
});

describe("reference/special_functions/data-manipulation-utilities.md", () => {
  /** Each documented call, by the text of its example, with what the page says it gives (repr). */
  const examples: [string, string][] = [
    ['data_utils.extract_chars("test123abc", 4)', "'test'"],
    ['data_utils.extract_chars("test123abc", 7, 100)', "'abc'"],
    ['data_utils.extract_chars("test123abc", 0, 7, 2)', "'ts13'"],
    ['data_utils.extract_chars("")', "''"],
    ["data_utils.extract_chars(None, 0, 7, 2)", "None"],
    ['data_utils.extract_digits("abc123")', "'123'"],
    ['data_utils.extract_digits("123-456-7890")', "'1234567890'"],
    ['data_utils.extract_digits("")', "''"],
    ["data_utils.extract_digits(None)", "None"],
    ["data_utils.percent_to_decimal(8)", "Decimal('0.08')"],
    ['data_utils.percent_to_decimal("")', "None"],
    ["data_utils.percent_to_decimal(None)", "None"],
    ["data_utils.round_half_up(0.875, decimal_places=2)", "Decimal('0.88')"],
    ['data_utils.round_half_up("", decimal_places=2)', "None"],
    ["data_utils.round_half_up(None, decimal_places=2)", "None"],
    ['data_utils.convert_date_string("2024-12-22", "%Y-%m-%d", "%Y/%m/%d")', "'2024/12/22'"],
  ];

  it.each(examples)("%s gives %s", async (call, documented) => {
    expect(await outputOf(`import_helper("data_utils")\noutput.payload = repr(${call})`)).toBe(documented);
  });

  it("gives the current date in a time zone, in the format asked for", async () => {
    const today = await outputOf(
      'output.payload = data_utils.get_current_date_string("US/Pacific", "%Y-%m-%d")',
    );
    const pacific = new Intl.DateTimeFormat("en-CA", { timeZone: "US/Pacific" }).format(new Date());
    expect(today).toBe(pacific);
  });

  it("counts with IndexGenerator: next() and .last", async () => {
    const hook = [
      "custom_idx = data_utils.IndexGenerator(start=0)",
      "seen = [custom_idx.last]",
      "seen += [next(custom_idx), custom_idx.last, next(custom_idx), custom_idx.last]",
      "output.payload = seen",
    ].join("\n");
    expect(await outputOf(hook)).toEqual([null, 0, 0, 1, 1]);
  });
});

describe("reference/special_functions/keep.md", () => {
  it("keeps the page's values for later cells, and not what changed after", async () => {
    const definition = stringify({
      name: "py",
      language: "python",
      before_hook: [
        'a = ["list", "items"]',
        "keep(a=a)",
        "keep(should_create_account = input.payload.create_account)",
        "b, c = [], []",
        "keep(test=b, c=c)",
        'x = {"y": [], "z": []}',
        "keep(**x)",
        "keep(foo = 123)",
        "foo += 1",
      ].join("\n"),
      finally_hook: "output.payload = [a, should_create_account, test, c, y, z, foo]",
    });
    const result = await runDefinition(definition, { payload: { create_account: true } });
    expect(result.output.payload).toEqual([["list", "items"], true, [], [], [], [], 123]);
  });

  it("keeps any Python object for the run: a module, an IndexGenerator", async () => {
    const definition = stringify({
      name: "py",
      language: "python",
      before_hook: [
        'keep(my_module = import_module("my_module"))',
        "keep(custom_idx = data_utils.IndexGenerator())",
      ].join("\n"),
      on_success_hook: "keep(results = [my_module.test_function(), next(custom_idx), next(custom_idx)])",
      finally_hook: "output.payload = {'results': results, 'last': custom_idx.last}",
    });
    const result = await runDefinition(
      definition,
      { payload: {} },
      {
        project: "systems: {}\nmodules:\n  my_module: modules/my_module.py\n",
        projectFiles: { "modules/my_module.py": 'def test_function():\n    return "tested"\n' },
      },
    );
    expect(result.output.payload).toEqual({ results: ["tested", 0, 1], last: 1 });
  });
});

describe("reference/special_functions/open_glyuefile.md", () => {
  it("writes a new file, reads it in a with block, and refuses a write once closed", async () => {
    const hook = [
      "# Open a new file and write to it",
      'file = open_glyuefile("hello_world.txt", mode="x", encoding="utf-8")',
      'file.write("Hello world!")',
      "file.close()",
      "# Open an existing file (defaults to read-text mode and UTF-8 encoding)",
      'with open_glyuefile("hello_world.txt") as file:',
      "    content = file.read()",
      '    debug(content, "file content")',
      "# file is now closed",
      "try:",
      '    file.write("This will cause error!") # Raises UnsupportedOperation exception',
      "except Exception as error:",
      "    refused = type(error).__name__",
      "output.payload = {'content': content, 'refused': refused, 'closed': file.closed, 'files': list_files()}",
    ].join("\n");
    expect(await outputOf(hook)).toEqual({
      content: "Hello world!",
      refused: "UnsupportedOperation",
      closed: true,
      files: ["hello_world.txt"],
    });
  });

  it("opens as open() does: x fails on a file that exists, r on one that does not, a appends, + reads back", async () => {
    const hook = [
      'with open_glyuefile("a.txt", "w") as file:',
      '    file.write("one\\n")',
      "for name in list_files():",
      '    with open_glyuefile(name, "a") as file:',
      '        file.write("foobar")',
      'with open_glyuefile("a.txt", "r+") as file:',
      "    lines = file.readlines()",
      "    file.seek(0)",
      '    file.write("ONE")',
      'with open_glyuefile("a.txt") as file:',
      "    after = file.read()",
      "errors = []",
      'for name, mode in [("a.txt", "x"), ("missing.txt", "r")]:',
      "    try:",
      "        open_glyuefile(name, mode)",
      "    except Exception as error:",
      "        errors.append(type(error).__name__)",
      'with open_glyuefile("b.bin", "wb") as file:',
      '    file.write(b"\\x00\\x01")',
      'with open_glyuefile("b.bin", "rb") as file:',
      "    data = list(file.read())",
      "output.payload = {'lines': lines, 'after': after, 'errors': errors, 'bytes': data}",
    ].join("\n");
    expect(await outputOf(hook)).toEqual({
      lines: ["one\n", "foobar"],
      after: "ONE\nfoobar",
      errors: ["FileExistsError", "FileNotFoundError"],
      bytes: [0, 1],
    });
  });
});

describe("tutorials/building-a-basic-integration/sending-the-email.md", () => {
  it("writes the e-mail's body with write and writelines", async () => {
    const hook = [
      "from datetime import datetime",
      "",
      "stories = input.payload.stories",
      "email_limit = 50",
      'with open_glyuefile("email_body.txt", "w") as file:',
      '    file.write(f"Here are the top {email_limit} articles:\\n\\n")',
      "    for story in stories[:email_limit]:",
      '        time = datetime.fromtimestamp(story.time).strftime("%m/%d/%Y")',
      "        file.writelines([",
      '            f"{story.title}\\n",',
      '            f"Posted on {time} ({story.score} points)\\n\\n"',
      "        ])",
      'with open_glyuefile("email_body.txt") as file:',
      "    output.payload = file.read()",
    ].join("\n");
    const result = await runDefinition(python(hook), {
      payload: { stories: [{ title: "bass", time: 0, score: 3 }] },
    });
    const day = new Date(0);
    const shown = `${String(day.getMonth() + 1).padStart(2, "0")}/${String(day.getDate()).padStart(2, "0")}/${day.getFullYear()}`;
    expect(result.output.payload).toBe(
      `Here are the top 50 articles:\n\nbass\nPosted on ${shown} (3 points)\n\n`,
    );
  });
});

describe("reference/special_variables/input.md", () => {
  it("has the user who called as { id, username, email }", async () => {
    const result = await runDefinition(
      python("output.payload = [input.user.id, input.user.username, input.user.email, input.method]"),
      { payload: {}, method: "POST", user: { id: null, username: "ada", email: null } },
    );
    expect(result.output.payload).toEqual([null, "ada", null, "POST"]);
  });
});

describe("the other special functions of reference/special_functions", () => {
  const items = async (hook: string, extra: Record<string, unknown> = {}) => {
    const definition = stringify({ name: "py", language: "python", ...extra, on_success_hook: hook });
    const result = await runDefinition(definition, { payload: { test: "" } });
    const failure = result.record.items.find((item) => item.kind === "FAILURE");
    if (failure?.kind === "FAILURE") throw new Error(failure.error.message);
    return result;
  };

  it("debug.md: records the value under its label, and the stack when asked", async () => {
    const result = await items(
      'a = ["SAMPLE"]\ndebug(a, label="Sample array")\ndebug(1, "here", capture_stack_trace=True)',
    );
    const debugs = result.record.items.filter((item) => item.kind === "DEBUG");
    expect(debugs[0]).toMatchObject({ label: "Sample array", data: ["SAMPLE"] });
    expect(debugs[2]).toMatchObject({
      label: "here stack",
      data: expect.stringMatching(/bass-py-cell-\d+", line 3/),
    });
  });

  it("map_value.md: maps a value through the integration's value mapping set", async () => {
    const hook =
      "input.payload.test = 'Testing inputs'\noutput.payload = map_value('SAMPLEVMS', input.payload.test)";
    const sets = {
      value_mapping_sets: [{ name: "SAMPLEVMS", mappings: [{ from: "Testing inputs", to: "new output" }] }],
    };
    expect((await items(hook, sets)).output.payload).toBe("new output");
  });

  it("add_run_label.md: adds the labels to the run", async () => {
    const hook =
      'payload = input.payload\nadd_run_label(f"loan_id:{payload.test or 42}")\nadd_run_label("type:mortgage")';
    expect((await items(hook)).record.labels).toEqual(["loan_id:42", "type:mortgage"]);
  });

  it("humanize.md: gives a field mapping's message substitution name for its field", async () => {
    const hook = `## Field mapping with:
## 'Field' of 'sample.value'
## 'Message Substitution Name' of Sample
k = humanize("sample.value")
debug(k)
# will output 'Sample'
debug([humanize("people[2].name"), humanize("nothing.named")])`;
    const result = await items(hook, {
      service_requests: [
        {
          formula_variable: "sample",
          system: "transform",
          field_mappings: [
            { field: "sample.value", literal: 1, message_substitution_name: "Sample" },
            {
              field: "people[fidx].name",
              literal: "Ada",
              include_for_each: "[1]",
              message_substitution_name: "Person's name",
            },
          ],
        },
      ],
    });
    const debugs = result.record.items.filter((item) => item.kind === "DEBUG");
    expect(debugs.map((item) => item.kind === "DEBUG" && item.data)).toEqual([
      "Sample",
      ["Person's name", "nothing.named"],
    ]);
  });

  it("get_namespace.md: gives the namespace, which debug records", async () => {
    const result = await items("current_int_namespace = get_namespace()\ndebug(current_int_namespace)");
    const debug = result.record.items.find((item) => item.kind === "DEBUG");
    expect(debug).toMatchObject({
      data: expect.objectContaining({ input: expect.objectContaining({ payload: { test: "" } }) }),
    });
  });
});

describe("reference/special_variables", () => {
  it("retvalue.md: a multi-line cell gives its retvalue", async () => {
    const hook = [
      'if input.payload == "test value":',
      "    retvalue = input.payload",
      "else:",
      '    retvalue = "value not provided"',
    ].join("\n");
    const definition = stringify({
      name: "py",
      language: "python",
      service_requests: [
        { formula_variable: "made", system: "transform", field_mappings: [{ field: "given", value: hook }] },
      ],
      on_success_hook: "output.payload = made.request.payload",
    });
    const given = await runDefinition(definition, { payload: "test value" });
    expect(given.output.payload).toEqual({ given: "test value" });
    const other = await runDefinition(definition, { payload: {} });
    expect(other.output.payload).toEqual({ given: "value not provided" });
  });

  it("iterables/fitem-fidx.md and sritem-sridx.md: fill a list per item, and call once per item", async () => {
    const people = [
      { name: "Sally", email: "sally@email.com" },
      { name: "Benjamin", email: "benjamin@email.com" },
      { name: "David", email: "david@email.com" },
    ];
    const definition = stringify({
      name: "py",
      language: "python",
      service_requests: [
        {
          formula_variable: "all",
          system: "transform",
          field_mappings: [
            { field: "all_emails[fidx]", value: "fitem['email']", include_for_each: "input.payload.people" },
          ],
        },
        {
          formula_variable: "each",
          system: "transform",
          call_for_each: "input.payload.people",
          field_mappings: [{ field: "email_address", value: "sritem.email" }],
        },
      ],
      on_success_hook:
        "output.payload = {'all': all.request.payload.all_emails, 'each': [sr.request.payload.email_address for sr in each]}",
    });
    const result = await runDefinition(definition, { payload: { people } });
    const emails = people.map((person) => person.email);
    expect(result.output.payload).toEqual({ all: emails, each: emails });
  });

  it("run_history_id.md: is the run's id", async () => {
    const result = await runDefinition(python("output.payload = run_history_id"), { payload: {} });
    expect(result.output.payload).toBe(result.runId);
  });

  it("parentint.md: a sync child reads its parent's input and run id", async () => {
    const app = await serve({
      child: "output.payload = {'parent': parentint.input.payload.unwrap(), 'id': parentint.run_history_id}",
      parent: "output.payload = {'child': callint('child', {}).payload.unwrap(), 'me': run_history_id}",
    });
    const answer = await post(app, "/parent", { loan: 7 });
    const body = answer.body as { child: { parent: unknown; id: string }; me: string };
    expect(answer.status).toBe(200);
    expect(body.child).toEqual({ parent: { loan: 7 }, id: body.me });
  }, 30_000);
});

describe("tutorials/building-a-restful-crud-web-service: the other vault hooks", () => {
  /** Each hook of the tutorial's page, as an integration of one project around the vault `data`. */
  const hooks: Record<string, string> = {
    all: [
      "with open_vault('data') as vault:",
      "    customers = vault.get('customers')",
      "",
      "    if customers:",
      "        output.payload = customers",
      "    else:",
      '        output.payload = "There are no customers in the data vault."',
    ].join("\n"),
    one: [
      "with open_vault('data') as vault:",
      "    customers = vault.get('customers')",
      "    customers = [customer for customer in customers if customer.id == input.path.id]",
      "",
      "    if customers:",
      "        output.payload = customers[0]",
      "    else:",
      "        output.payload = f'There are no customers with an id of: {input.path.id}'",
    ].join("\n"),
    add: [
      "with open_vault('data') as vault:",
      "    customers = vault.get('customers')",
      "    customers.append(insert_customer.response.payload)",
      "    vault.update('customers', customers)",
      '    output.payload = { "id": insert_customer.response.payload.id }',
    ].join("\n"),
    remove: [
      "with open_vault('data') as vault:",
      "    customers = vault.get('customers')",
      "    previous_length = len(customers)",
      "    customers = [customer for customer in customers if customer.id != input.path.id]",
      "",
      "    if previous_length != len(customers):",
      "        vault.update('customers', customers)",
      '        output.payload = f"The customer with an id of {input.path.id} has been deleted."',
      "    else:",
      "        output.payload = f'There are no customers with an id of: {input.path.id}'",
    ].join("\n"),
  };

  it("lists, finds, adds and deletes customers as the page says", async () => {
    const insert = {
      formula_variable: "insert_customer",
      system: "echo",
      field_mappings: [
        { field: "id", value: "input.payload.id" },
        { field: "name", value: "input.payload.name" },
      ],
    };
    const files = Object.fromEntries(
      Object.entries(hooks).map(([name, hook]) => [
        `integrations/${name}.yaml`,
        stringify({
          name,
          language: "python",
          ...(name === "add" && { service_requests: [insert] }),
          on_success_hook: hook,
        }),
      ]),
    );
    const dir = createTempDir({
      "bass.config.yaml": stringify({
        systems: { echo: { adapter: "echo" } },
        vaults: { data: { items: { customers: [{ id: "1", name: "Ada" }] } } },
      }),
      ...files,
    });
    const { run } = withVaults(dir);
    expect(await run("all", { payload: {} })).toEqual([{ id: "1", name: "Ada" }]);
    expect(await run("add", { payload: { id: "2", name: "Grace" } })).toEqual({ id: "2" });
    expect(await run("one", { path: { id: "2" }, payload: {} })).toEqual({ id: "2", name: "Grace" });
    expect(await run("remove", { path: { id: "1" }, payload: {} })).toBe(
      "The customer with an id of 1 has been deleted.",
    );
    expect(await run("remove", { path: { id: "9" }, payload: {} })).toBe(
      "There are no customers with an id of: 9",
    );
    expect(await run("all", { payload: {} })).toEqual([{ id: "2", name: "Grace" }]);
  });
});

/** A project whose one system the tests' mocks answer. */
const codeConnect = "systems:\n  codeconnect:\n    adapter: echo\n";

describe("tutorials/building-a-customer360-retrieval-api-against-fis-codeconnect: hooks and field mappings", () => {
  it("keeps customerNumber for the mapping's f-string path, and answers the core's response", async () => {
    const customer = { customerNumber: "00000000001", name: { first: "Ada" } };
    const definition = stringify({
      name: "customer360",
      language: "python",
      before_hook: 'customerNumber = "00000000001"\nkeep(customerNumber = customerNumber)\n',
      service_requests: [
        {
          formula_variable: "getCustomer",
          system: "codeconnect",
          field_mappings: [
            { field: "_application_id", value: '"CI"', value_type: "string" },
            { field: "_path", value: 'f"customers/{customerNumber}"', value_type: "string" },
            { field: "_method", value: '"GET"', value_type: "string" },
          ],
          after_overall_success_hook: "output.payload = getCustomer.response.payload\n",
        },
      ],
    });
    const result = await runDefinition(
      definition,
      { payload: {} },
      { project: codeConnect, mocks: { getCustomer: { success: true, status: 200, payload: customer } } },
    );
    const request = result.record.items.find((item) => item.kind === "REQUEST");
    expect(request?.kind === "REQUEST" && request.request.payload).toEqual({
      _application_id: "CI",
      _path: "customers/00000000001",
      _method: "GET",
    });
    expect(result.output.payload).toEqual(customer);
  });
});

describe("tutorials/building-a-single-step-integration/4.-crafting-the-output.md", () => {
  it("reads the first user's first name through lists and keys, into an f-string", async () => {
    const users = { results: [{ name: { title: "Ms", first: "Grace", last: "Hopper" } }] };
    const definition = stringify({
      name: "single-step",
      language: "python",
      service_requests: [{ formula_variable: "request_users", system: "codeconnect" }],
      on_success_hook: [
        "first_name = request_users.response.payload.results[0].name.first",
        'summary = f"The new user\'s name is {first_name}."',
        "output.payload = summary",
      ].join("\n"),
    });
    const result = await runDefinition(
      definition,
      { payload: {} },
      { project: codeConnect, mocks: { request_users: { success: true, status: 200, payload: users } } },
    );
    expect(result.output.payload).toBe("The new user's name is Grace.");
  });
});

describe("tutorial/first_integration_2.md", () => {
  it("historizes a response payload under its label (the page's next line is cut off mid-expression)", async () => {
    const people = [{ Name: "Ada" }, { Name: "Grace" }];
    const definition = stringify({
      name: "first",
      language: "python",
      service_requests: [
        {
          formula_variable: "sw_re",
          system: "codeconnect",
          after_execute_request_success_hook:
            'historize(sw_re.response.payload, label="Salesforce Response Payload")\n',
        },
      ],
    });
    const result = await runDefinition(
      definition,
      { payload: {} },
      { project: codeConnect, mocks: { sw_re: { success: true, status: 200, payload: people } } },
    );
    expect(result.record.items.find((item) => item.kind === "DEBUG")).toMatchObject({
      label: "Salesforce Response Payload",
      data: people,
    });
  });
});

describe("tutorials/building-a-multi-system-integration/2.-field-mapping.md", () => {
  it("maps a response read through lists and keys onto the core's nested fields", async () => {
    const user = {
      name: { first: "Ada", last: "Lovelace" },
      email: "ada@example.com",
      dob: { date: "1815-12-10" },
    };
    const mappings: [string, string][] = [
      ["Name.FirstName", "request_users.response.payload.results[0].name.first"],
      ["Name.LastName", "request_users.response.payload.results[0].name.last"],
      [
        "EmailAddresses.EmailAddress[0].ElectronicAddressLines.ElectronicAddressLine[0].AddrLine",
        "request_users.response.payload.results[0].email",
      ],
      ["Identification.DateOfBirth", "request_users.response.payload.results[0].dob.date"],
      ["PersTyps.PersTyp[0].PersonTypeCode", '"individual"'],
      ["url_path", '"/api/integration/fiservdna/person_maintenance"'],
    ];
    const definition = stringify({
      name: "multi-system",
      language: "python",
      service_requests: [
        { formula_variable: "request_users", system: "codeconnect" },
        {
          formula_variable: "create_person",
          system: "codeconnect",
          field_mappings: mappings.map(([field, value]) => ({ field, value, value_type: "string" })),
        },
      ],
    });
    const result = await runDefinition(
      definition,
      { payload: {} },
      {
        project: codeConnect,
        mocks: {
          request_users: { success: true, status: 200, payload: { results: [user] } },
          create_person: { success: true, status: 200, payload: {} },
        },
      },
    );
    const requests = result.record.items.filter((item) => item.kind === "REQUEST");
    expect(requests[1]?.kind === "REQUEST" && requests[1].request.payload).toEqual({
      Name: { FirstName: "Ada", LastName: "Lovelace" },
      EmailAddresses: {
        EmailAddress: [
          { ElectronicAddressLines: { ElectronicAddressLine: [{ AddrLine: "ada@example.com" }] } },
        ],
      },
      Identification: { DateOfBirth: "1815-12-10" },
      PersTyps: { PersTyp: [{ PersonTypeCode: "individual" }] },
      url_path: "/api/integration/fiservdna/person_maintenance",
    });
  });
});

describe("tutorials/building-a-basic-integration/input-validation.md", () => {
  const emailRule = `import re

pattern = r"^\\w[\\w&'\\+\\-\\.]*\\b@[a-zA-Z\\d][a-zA-Z\\d\\-]*\\b\\.[a-zA-Z\\d]+[a-zA-Z\\d\\-]*[a-zA-Z\\d]$"
retvalue = _ and isinstance(_, str) and re.match(pattern, _)
`;
  const limitRule = "not _ or (isinstance(_, int) and _ > 0)";
  const definition = stringify({
    name: "hackernews_email_digest",
    language: "python",
    validation_rules: [
      { type: "INPUT", field: "input.payload.email", rule: emailRule },
      { type: "INPUT", field: "input.payload.limitQuery", rule: limitRule },
      { type: "INPUT", field: "input.payload.limitEmail", rule: limitRule },
    ],
    on_success_hook: 'output.payload = "valid"',
  });

  it.each([
    [{ email: "ada@example.com", limitQuery: 5 }, "success"],
    [{ email: "ada@example.com" }, "success"],
    [{ email: "not an address" }, "failure"],
    [{ email: "ada@example.com", limitQuery: -1 }, "failure"],
    [{ email: "ada@example.com", limitEmail: "5" }, "failure"],
    [{}, "failure"],
  ])("checks %j: %s", async (payload, status) => {
    const result = await runDefinition(definition, { payload });
    expect(result.status).toBe(status);
    expect(result.output.status).toBe(status === "success" ? 200 : 422);
  });
});
