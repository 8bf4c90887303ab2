// YAML as plain data, for what reads or writes it only now and then: imported with `await import()`, so
// that a command pays for the parser only when it needs it, and through this file, whose static import
// gives bundled code the parser's named exports (a dynamic import of the package itself does not).
export { parse, stringify } from "yaml";
