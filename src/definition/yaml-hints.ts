/**
 * Advice for the usual causes of a YAML syntax error, from the parser's error code and message and the
 * text of its line: the parser's words say what it saw, not what to change. Undefined without advice.
 */
export function yamlHint(code: string, message: string, line: string): string | undefined {
  if (code === "TAB_AS_INDENT") return "indent with spaces: YAML does not allow tabs for indentation";
  if (code === "MISSING_CHAR" && /quote/.test(message))
    return "close the quote on the same value, or quote the value with the other kind of quote";
  const value = /^\s*(?:-\s+)?[^:#]+:\s+(.*)$/.exec(line)?.[1] ?? "";
  if (code === "BLOCK_AS_IMPLICIT_KEY") {
    if (/:\s*$/.test(value)) return `a value that ends in ":" is read as a key; quote it: "${value.trim()}"`;
    if (/:\s/.test(value)) return 'a value that holds ": " needs quotes around it';
    return "check the indentation: a key under another must be indented further, and keys of one map alike";
  }
  if (code === "UNEXPECTED_TOKEN" && /^[[{]/.test(value.trim()))
    return "a value that starts with { or [ is read as a map or a list; quote it to keep it text";
  if (code === "MULTILINE_IMPLICIT_KEY") {
    // `service_name:create-person` is one text, not a key and its value: YAML needs the space.
    const glued = /^\s*(?:-\s+)?([A-Za-z_][\w.-]*):(\S.*)$/.exec(line);
    if (glued) return `put a space after the colon to make a key and its value: "${glued[1]}: ${glued[2]}"`;
    return "check the indentation of this line and the one above it";
  }
  return undefined;
}
