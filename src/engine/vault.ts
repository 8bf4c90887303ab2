// What a run needs of the project's vaults (open_vault); src/project/vaults.ts keeps them.

/** A vault held by one run until the cell that opened it ends: synchronous operations, then `release`. */
export interface VaultHandle {
  get(key: unknown): unknown;
  insert(key: unknown, value: unknown): void;
  update(key: unknown, value: unknown): void;
  upsert(key: unknown, value: unknown): void;
  delete(key: unknown): void;
  get_secret(key: unknown): string | null;
  insert_secret(key: unknown, value: unknown): void;
  update_secret(key: unknown, value: unknown): void;
  upsert_secret(key: unknown, value: unknown): void;
  delete_secret(key: unknown): void;
}

/** What a run masks, as a vault it holds needs it. */
export interface RunMasks {
  /** A secret the run read or wrote: masked by value from now on. */
  add(secret: string): void;
  /** Whether a text holds a value the run masks: such a value may not be kept as an item, in clear. */
  holds(text: string): boolean;
}

/** A vault a run holds, until `release`. */
export interface HeldVault {
  vault: VaultHandle;
  release(): void;
}

export interface VaultStore {
  /**
   * Waits until no other run (of any thread or process) holds the vault, up to `deadline` (a
   * `performance.now()` time; past it, `vault_busy`), then holds it.
   */
  open(name: string, deadline: number, masks: RunMasks): Promise<HeldVault>;
  /**
   * As `open`, waiting with the thread blocked: for Python cells, which cannot await. `ready` must have
   * settled first.
   */
  openNow(name: string, deadline: number, masks: RunMasks): HeldVault;
  /** Opens what `openNow` needs and cannot wait for (the state key). */
  ready(): Promise<void>;
  /** The vault's items and its secrets' keys, without holding it (`bass vault list`). */
  peek(name: string): Promise<{ items: Record<string, unknown>; secretKeys: string[] }>;
}
