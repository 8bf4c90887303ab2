/** Where the CLI's launcher lends its own import() (src/cli/launch.ts). */
export const lentImport = Symbol.for("bass.importModule");

/**
 * import() of a module from outside the CLI bundle (Pyodide, a project's adapter module). The bundle may
 * run compiled from V8's code cache, where Node 20 loses a compiled script's import() (it throws
 * ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING): the launcher then lends its own.
 */
export function importModule<T>(specifier: string): Promise<T> {
  const lent = (globalThis as { [lentImport]?: (specifier: string) => Promise<unknown> })[lentImport];
  return (lent ? lent(specifier) : import(specifier)) as Promise<T>;
}
