/** The process's first SIGINT or SIGTERM; `cancel` gives both back to their default handling. */
export function waitForStopSignal(): { received: Promise<NodeJS.Signals>; cancel(): void } {
  let stop: (signal: NodeJS.Signals) => void = () => {};
  const cancel = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  };
  const received = new Promise<NodeJS.Signals>((resolve) => {
    stop = (signal) => {
      cancel();
      resolve(signal);
    };
  });
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return { received, cancel };
}
