import { describe, expect, it } from "vitest";
import { createLimiter } from "../../src/serve/limiter.js";

const aTurnLater = () => new Promise((resolve) => setImmediate(resolve));

function watch(promise: Promise<void>) {
  const state = { done: false };
  void promise.then(() => {
    state.done = true;
  });
  return state;
}

describe("createLimiter", () => {
  it("gives out at most max slots and counts them", () => {
    const limiter = createLimiter(2);
    expect(limiter.active).toBe(0);
    const first = limiter.tryAcquire();
    const second = limiter.tryAcquire();
    expect(typeof first).toBe("function");
    expect(typeof second).toBe("function");
    expect(limiter.active).toBe(2);
    expect(limiter.tryAcquire()).toBeUndefined();
    expect(limiter.active).toBe(2);
  });

  it("gives a released slot out again", () => {
    const limiter = createLimiter(1);
    const release = limiter.tryAcquire();
    release?.();
    expect(limiter.active).toBe(0);
    expect(typeof limiter.tryAcquire()).toBe("function");
    expect(limiter.active).toBe(1);
  });

  it("releases once when a release function is called twice", () => {
    const limiter = createLimiter(2);
    const first = limiter.tryAcquire();
    limiter.tryAcquire();
    first?.();
    first?.();
    expect(limiter.active).toBe(1);
    expect(typeof limiter.tryAcquire()).toBe("function");
    expect(limiter.tryAcquire()).toBeUndefined();
  });

  it("is idle at once when no run holds a slot", async () => {
    const idle = watch(createLimiter(1).idle());
    await aTurnLater();
    expect(idle.done).toBe(true);
  });

  it("becomes idle when the last slot is released, not before, also when one release is called twice", async () => {
    const limiter = createLimiter(3);
    const first = limiter.tryAcquire();
    const second = limiter.tryAcquire();
    const idle = watch(limiter.idle());
    const alsoIdle = watch(limiter.idle());
    first?.();
    first?.();
    await aTurnLater();
    expect(idle.done).toBe(false);
    second?.();
    await aTurnLater();
    expect(idle.done).toBe(true);
    expect(alsoIdle.done).toBe(true);
  });

  it("stops waiting for idle after its time-out while a slot is still held", async () => {
    const limiter = createLimiter(1);
    const release = limiter.tryAcquire();
    const idle = watch(limiter.idle(30));
    await aTurnLater();
    expect(idle.done).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(idle.done).toBe(true);
    expect(limiter.active).toBe(1);
    release?.();
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses %s slots", (max) => {
    expect(() => createLimiter(max)).toThrow(RangeError);
  });
});
