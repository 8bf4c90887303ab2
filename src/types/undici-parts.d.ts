// undici publishes types for its index only; these files export what the index re-exports under these names.
declare module "undici/lib/dispatcher/pool.js" {
  import type { Pool } from "undici";

  const PoolClass: typeof Pool;
  export default PoolClass;
}

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";

  /** undici's `Dispatcher.prototype.request`: called with the dispatcher as `this`. */
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}

declare module "undici/lib/core/errors.js" {
  import type { errors } from "undici";

  const all: typeof errors;
  export default all;
}
