import type { AdapterResponse } from "../adapters/adapter.js";
import type { CallintAnswer, CallintRequest } from "./callint.js";
import type { CallSlot, CallTarget } from "./service-requests.js";

/**
 * The calls a Python cell makes through the thread that started its own (serve's HTTP thread, or bass
 * run's), its own thread blocked until the answer: it cannot await, and the embedded mock core and the
 * systems of a callint child need an event loop that runs. Each is waited for what is left of the cell's
 * time (`waitMs`), as an awaited call of a JavaScript cell is.
 */
export interface RemoteCalls {
  calladapter(target: CallTarget, request: CallSlot["request"], waitMs: number): AdapterResponse;
  callint(request: CallintRequest, waitMs: number): CallintAnswer;
}
