// The handlers of subresources beyond status and of virtual kinds, built from the catalogue rows:
// each kind module names the handler factory serving each of its subresources (src/kinds/), and
// this builds every one once, with the parts it needs. No kind is named here.
import type { Catalogue, HandlerFactory, ResourceDef } from '../api/catalogue.ts';
import type { Store } from '../store/store.ts';
import type { SpecialHandler } from './dispatch.ts';
import type { GenericRegistry } from './rest.ts';

/** The dispatcher's key of a handler: `<plural>/<subresource>`, or `<plural>` for a virtual kind. */
export function handlerKey(def: ResourceDef, subresource: string): string {
  return subresource ? `${def.plural}/${subresource}` : def.plural;
}

/** Every handler the served rows name, keyed for the dispatcher; a factory named by several rows is built once. */
export function subresourceHandlers(registry: GenericRegistry, store: Store, catalogue: Catalogue): Map<string, SpecialHandler> {
  const built = new Map<HandlerFactory, SpecialHandler>();
  const handlerOf = (factory: HandlerFactory): SpecialHandler => {
    let h = built.get(factory);
    if (!h) built.set(factory, (h = factory({ registry, store, catalogue })));
    return h;
  };
  const handlers = new Map<string, SpecialHandler>();
  for (const def of catalogue.resources) {
    if (def.handler) handlers.set(handlerKey(def, ''), handlerOf(def.handler));
    for (const sub of def.subresources) if (sub.handler) handlers.set(handlerKey(def, sub.name), handlerOf(sub.handler));
  }
  return handlers;
}
