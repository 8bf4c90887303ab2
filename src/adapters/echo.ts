import type { Adapter } from "./adapter.js";

/** The `echo` adapter: answers with the prepared payload, for transform-only steps (docs/behaviour.md#systems-and-adapters). */
export const echoAdapter: Adapter = {
  execute: async (request) => ({ success: true, payload: request.payload, messages: [] }),
};
