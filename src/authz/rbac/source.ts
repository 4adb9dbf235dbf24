// Where the live RBAC authorizer learns the objects of the four kinds: a listing and the changes after
// it. authz defines the shape; the server's assembly hands in its store (which has this shape), and a
// process without a store could hand in anything else that lists and streams the objects.
import type { ApiObject } from '../../api/object.ts';

export interface RbacObjectEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: { group: string; resource: string; namespace: string; name: string };
  object: ApiObject;
}

export interface RbacEventSource {
  /** Every object of one group/resource, now. */
  list(group: string, resource: string): { items: readonly ApiObject[] };
  /**
   * Every change applied after the listing, in order, as batches. Called synchronously right after
   * list(): no change may fall between the two. Returns the unsubscribe function.
   */
  subscribe(listener: (events: readonly RbacObjectEvent[]) => void): () => void;
}
