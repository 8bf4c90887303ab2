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
  const tell = () => {
    if (told) return;
    told = true;
    acting();
  };
  const { adapters, vaults, files, remote } = ways;
  return {
    adapters: (system) => {
      tell();
      return adapters(system);
    },
    vaults: vaults && {
      ...vaults,
      open: (...args) => {
        tell();
        return vaults.open(...args);
      },
      openNow: (...args) => {
        tell();
        return vaults.openNow(...args);
      },
      ready: () => vaults.ready(),
      peek: (name) => vaults.peek(name),
    },
    files: files && {
      keep: (runId, kept) => {
        tell();
        return files.keep(runId, kept);
      },
    },
    remote: remote && {
      calladapter: (...args) => {
        tell();
        return remote.calladapter(...args);
      },
      callint: (...args) => {
        tell();
        return remote.callint(...args);
      },
    },
  };
}
