// The integration the benches run, in JavaScript and with Python cells: serve answers it, validate checks it.

/** The serve bench integration in one language: one echo call with two field mappings and a hook. */
const integration = ({ description, language, strip, hook }) => `name: bench.serve
description: ${description}
${language ? `language: ${language}\n` : ""}endpoints:
  - method: POST
    path: /bench/people
service_requests:
  - formula_variable: person
    system: echo
    service_name: create-person
    field_mappings:
      - field: firstName
        value: input.payload.first_name.${strip}()
      - field: email
        value: input.payload.email
on_success_hook: |
${hook.map((line) => `  ${line}\n`).join("")}`;

/** The integration serve answers; its hook builds the answer from the echoed call. */
export const DEFINITION = integration({
  description: "The serve bench integration",
  strip: "trim",
  hook: [
    "const created = person.response.payload",
    "output.status = 201",
    "output.payload = { first_name: created.firstName, email: created.email }",
  ],
});

/** DEFINITION with Python cells, as an integration imported from the platform has them. */
export const PYTHON_DEFINITION = integration({
  description: "The serve bench integration, in Python",
  language: "python",
  strip: "strip",
  hook: [
    "created = person.response.payload",
    "output.status = 201",
    'output.payload = {"first_name": created.firstName, "email": created.email}',
  ],
});
