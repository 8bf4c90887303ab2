/**
 * The standard JavaScript built-ins a cell sees (SPEC §4.1). Every other free name in a cell is looked up
 * in the run's namespace, so `process`, `require`, `globalThis` and Node's other globals are not there.
 */
export const cellGlobals: ReadonlySet<string> = new Set([
  "undefined", "NaN", "Infinity", "arguments",
  "Object", "Array", "String", "Number", "Boolean", "Symbol", "BigInt", "Math", "JSON", "Date", "RegExp",
  "Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError",
  "Map", "Set", "WeakMap", "WeakSet", "WeakRef", "Promise", "Proxy", "Reflect", "Intl",
  "ArrayBuffer", "SharedArrayBuffer", "DataView", "Atomics",
  "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
  "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array",
  "parseInt", "parseFloat", "isNaN", "isFinite",
  "encodeURIComponent", "decodeURIComponent", "encodeURI", "decodeURI",
  "TextEncoder", "TextDecoder", "URL", "URLSearchParams", "structuredClone", "atob", "btoa",
]);
