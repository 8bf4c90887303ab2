import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The heap-bound tests collect garbage before they measure. Setting V8's flag from a running test
    // instead (v8.setFlagsFromString) crashed the worker process now and then.
    execArgv: ["--expose-gc"],
  },
});
