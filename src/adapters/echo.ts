import type { Adapter } from "./adapter.js";

/** The `echo` adapter: answers with the prepared payload, for transform-only steps (SPEC §8). */
export const echoAdapter: Adapter = {
  execute: async (request) => ({ success: true, payload: request.payload, messages: [] }),
};
