// The handlers of subresources beyond status and of virtual kinds: each kind module names the
// factory serving each of its subresources (src/kinds/catalogue.ts keys them), and this builds every
// one the served rows need once, with the parts it needs. No kind is named here.
import type { Catalogue } from '../api/catalogue.ts';
import type { Store } from '../store/store.ts';
import { handlerKey, type SpecialHandler } from '../registry/dispatch.ts';
import type { GenericRegistry } from '../registry/rest.ts';
import { handlerFactoryFor } from './catalogue.ts';
import type { HandlerDeps, HandlerFactory } from './handler.ts';

/** Every handler the served rows name, keyed for the dispatcher; a factory named by several rows is built once. */
export function subresourceHandlers(
  registry: GenericRegistry,
  store: Store,
  catalogue: Catalogue,
  more: Pick<HandlerDeps, 'rules' | 'tokens'> = {},
): Map<string, SpecialHandler> {
  const built = new Map<HandlerFactory, SpecialHandler>();
  const handlers = new Map<string, SpecialHandler>();
  const add = (key: string) => {
    const factory = handlerFactoryFor(key);
    if (!factory) return;
    let h = built.get(factory);
    if (!h) built.set(factory, (h = factory({ registry, store, catalogue, ...more })));
    handlers.set(key, h);
  };
  for (const def of catalogue.resources) {
    add(handlerKey(def, ''));
    for (const sub of def.subresources) add(handlerKey(def, sub.name));
  }
  return handlers;
}
