// The integration the benches run, in JavaScript and with Python cells: serve answers it, validate checks it.

/** The integration serve answers: one echo call with two field mappings and a hook that builds the answer. */
export const DEFINITION = `name: bench.serve
description: The serve bench integration
endpoints:
  - method: POST
    path: /bench/people
service_requests:
  - formula_variable: person
    system: echo
    service_name: create-person
    field_mappings:
      - field: firstName
        value: input.payload.first_name.trim()
      - field: email
        value: input.payload.email
on_success_hook: |
  const created = person.response.payload
  output.status = 201
  output.payload = { first_name: created.firstName, email: created.email }
`;

/** DEFINITION with Python cells, as an integration imported from the platform has them. */
export const PYTHON_DEFINITION = `name: bench.serve
description: The serve bench integration, in Python
language: python
endpoints:
  - method: POST
    path: /bench/people
service_requests:
  - formula_variable: person
    system: echo
    service_name: create-person
    field_mappings:
      - field: firstName
        value: input.payload.first_name.strip()
      - field: email
        value: input.payload.email
on_success_hook: |
  created = person.response.payload
  output.status = 201
  output.payload = {"first_name": created.firstName, "email": created.email}
`;
