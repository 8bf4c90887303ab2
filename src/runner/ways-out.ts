import type { AdapterResolver } from "../adapters/adapter.js";
import type { RemoteCalls } from "../engine/remote.js";
import type { RunFileKeeper } from "../engine/run-files.js";
import type { VaultStore } from "../engine/vault.js";

/**
 * How a run acts outside its thread: its systems, its vaults, the files it keeps, and the calls its
 * Python cells make through the thread that asked for it.
 */
export interface WaysOut {
  adapters: AdapterResolver;
  vaults: VaultStore | undefined;
  files: RunFileKeeper | undefined;
  remote: RemoteCalls | undefined;
}

/**
 * The same ways out, telling `acting` before the run first takes one: a run stopped before that (its
 * worker ended for another run's stuck cell) did nothing outside its thread, and may run again elsewhere.
 */
export function tellingWhenActing(ways: WaysOut, acting: () => void): WaysOut {
  let told = false;
  const telling =
    <A extends unknown[], R>(take: (...args: A) => R) =>
    (...args: A): R => {
      if (!told) {
        told = true;
        acting();
      }
      return take(...args);
    };
  const { adapters, vaults, files, remote } = ways;
  return {
    adapters: telling(adapters),
    vaults: vaults && {
      open: telling(vaults.open.bind(vaults)),
      openNow: telling(vaults.openNow.bind(vaults)),
      ready: () => vaults.ready(),
      peek: (name) => vaults.peek(name),
    },
    files: files && { keep: telling(files.keep.bind(files)) },
    remote: remote && {
      calladapter: telling(remote.calladapter.bind(remote)),
      callint: telling(remote.callint.bind(remote)),
    },
  };
}
