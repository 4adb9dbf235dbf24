// Types for the untyped `json-merge-patch` package (RFC 7386), only what the patch module uses.
declare module 'json-merge-patch' {
  const jsonMergePatch: {
    /** Applies `patch` to `target`; mutates and returns `target` (or returns the patch if it is not an object). */
    apply(target: unknown, patch: unknown): unknown;
  };
  export default jsonMergePatch;
}
