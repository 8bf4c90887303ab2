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

export interface VaultStore {
  /**
   * Waits until no other run (of any thread or process) holds the vault, up to `deadline` (a
   * `performance.now()` time; past it, `vault_busy`), then holds it. `onSecret` gets each secret the run
   * reads or writes, to mask by value.
   */
  open(
    name: string,
    deadline: number,
    onSecret: (value: string) => void,
  ): Promise<{ vault: VaultHandle; release(): void }>;
  /** The vault's items and its secrets' keys, without holding it (`bass vault list`). */
  peek(name: string): Promise<{ items: Record<string, unknown>; secretKeys: string[] }>;
}
