// The PATCH conflict-retry loop of the reference server (MaxRetryWhenPatchConflicts = 5): a write that
// lost a race with a concurrent write is retried on a fresh read with the patch re-applied, so no
// concurrent patch is lost. A resourceVersion the patch itself sets is a precondition: when it no
// longer matches, the conflict is real and surfaces at once.

export const MAX_RETRY_WHEN_PATCH_CONFLICTS = 5;

export interface PatchRetry<T, R> {
  /** Reads the current object (throws NotFound when it is gone). */
  read(): Promise<T>;
  /** Applies the patch to the current object, returning the object to write. */
  apply(current: T): T | Promise<T>;
  /** Writes the patched object, guarded by its resourceVersion; throws a conflict when it lost a race. */
  write(patched: T, current: T): Promise<R>;
  /** Whether an error thrown by `write` is an optimistic-concurrency conflict. */
  isConflict(err: unknown): boolean;
  /** The resourceVersion of an object; defaults to `metadata.resourceVersion`. */
  resourceVersionOf?(obj: T): string | undefined;
  /** Retries after the first attempt; default MAX_RETRY_WHEN_PATCH_CONFLICTS. */
  maxRetries?: number;
}

function metadataResourceVersion(obj: unknown): string | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const meta = (obj as { metadata?: unknown }).metadata;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const rv = (meta as { resourceVersion?: unknown }).resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
}

/** Read → apply → write, re-reading and re-applying after a conflict the patch did not cause. */
export async function patchWithRetry<T, R>(p: PatchRetry<T, R>): Promise<R> {
  const rvOf = p.resourceVersionOf ?? metadataResourceVersion;
  const retries = p.maxRetries ?? MAX_RETRY_WHEN_PATCH_CONFLICTS;
  for (let attempt = 0; ; attempt++) {
    const current = await p.read();
    const patched = await p.apply(current);
    // The patch pinned a resourceVersion other than the current one: a precondition that cannot hold.
    const pinned = rvOf(patched);
    const pinsOther = pinned !== undefined && pinned !== '' && pinned !== rvOf(current);
    try {
      return await p.write(patched, current);
    } catch (err) {
      if (!p.isConflict(err) || pinsOther || attempt >= retries) throw err;
    }
  }
}
