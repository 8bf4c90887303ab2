import type { AdapterResolver } from "../adapters/adapter.js";

/** How long a call runs before the terminal hears what the run waits on. */
const quietMs = 500;

/**
 * The resolver's adapters, each call of which, once it has run `quietMs`, shows on the terminal what the
 * run waits on (`waiting on core (person) …`), cleared when it ends: a slow live call no longer looks
 * like a hang. `show` writes to the terminal's stderr; without one, the resolver is as it was.
 */
export function withWaitingLine(
  resolve: AdapterResolver,
  show: ((text: string) => void) | undefined,
): AdapterResolver {
  if (!show) return resolve;
  let shown = 0;
  return (system) => {
    const adapter = resolve(system);
    return {
      async execute(request, context) {
        const timer = setTimeout(() => {
          shown++;
          show(`\rwaiting on ${system} (${context.formulaVariable}) …`);
        }, quietMs);
        timer.unref();
        try {
          return await adapter.execute(request, context);
        } finally {
          clearTimeout(timer);
          if (shown > 0) {
            shown = 0;
            show("\r\u001b[K");
          }
        }
      },
    };
  };
}
