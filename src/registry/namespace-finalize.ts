// moved: src/kinds/core/namespace.ts (finalizeNamespace; the finalize handler is named on the Namespace
// row and built by subresourceHandlers). Delete this file at merge once src/controllers/{index,namespace}.ts
// import from there and drop namespaceFinalizeHandlers.
import type { SpecialHandler } from './dispatch.ts';
import type { GenericRegistry } from './rest.ts';

export { finalizeNamespace } from '../kinds/core/namespace.ts';

/** No handlers any more: subresourceHandlers builds `namespaces/finalize` from the kind row. */
export function namespaceFinalizeHandlers(_registry: GenericRegistry): Map<string, SpecialHandler> {
  return new Map();
}
