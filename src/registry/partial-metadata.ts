// `as=PartialObjectMetadata` and `as=PartialObjectMetadataList` (meta.k8s.io v1 and v1beta1, or the
// platform spelling meta.platform.io): an object, or each item of a list, reduced to its metadata.
import type { ApiObject } from '../api/object.ts';
import { LazyList, type LongList } from './lazy-list.ts';

export interface ListShape {
  metadata: Record<string, unknown>;
  items: readonly ApiObject[];
}

/** One object's metadata as a PartialObjectMetadata of `apiVersion` (`meta.k8s.io/v1`…). */
export function partialObjectMetadata(obj: ApiObject, apiVersion: string): ApiObject {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata ?? {} };
}

export function partialObjectMetadataList(list: ListShape, apiVersion: string) {
  return { kind: 'PartialObjectMetadataList', apiVersion, metadata: list.metadata, items: list.items.map((o) => partialObjectMetadata(o, apiVersion)) };
}

/** partialObjectMetadataList of a long list, its items made a slice at a time as they are written. */
export function lazyPartialObjectMetadataList(list: LongList, apiVersion: string): LazyList {
  return new LazyList({ kind: 'PartialObjectMetadataList', apiVersion, metadata: list.metadata }, 'items', list.count, (start, end) => list.items(start, end).map((o) => partialObjectMetadata(o, apiVersion)));
}
