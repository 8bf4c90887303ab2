/**
 * The parts of undici the http adapter uses, each from the file that defines it. undici's index loads all
 * of undici (fetch, WebSocket, caches, mocks), and its cookie code reads `globalThis.Headers`, which makes
 * Node load its own built-in copy of undici as well; bench/startup.js times a live run with both.
 */

import request from "undici/lib/api/api-request.js";
import errors from "undici/lib/core/errors.js";
import Pool from "undici/lib/dispatcher/pool.js";

export { errors, Pool, request };
