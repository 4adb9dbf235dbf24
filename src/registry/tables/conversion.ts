// `as=` conversions of response bodies (api-machinery: the reference's transformObject): which
// Accept ranges asking for one an endpoint accepts, and the converted body. A range asking for a
// conversion the endpoint cannot make never matches, so negotiation falls back to the client's next
// range (kubectl lists plain JSON after the Table types); 406 only when nothing else is acceptable.
import { apiVersionOf, type ResourceDef } from '../../api/catalogue.ts';
import type { ApiObject } from '../../api/object.ts';
import { errors, StatusError } from '../../request/errors.ts';
import { ListBody } from '../list-body.ts';
import { lazyPartialObjectMetadataList, partialObjectMetadata, partialObjectMetadataList, type ListShape } from '../partial-metadata.ts';
import { lazyListTable, listTable, objectTable, type IncludeObject } from './table.ts';
import type { LongList } from '../lazy-list.ts';
import { isLongList } from '../../codec/codec.ts';

export type ConversionKind = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** The meta group under the ecosystem's name and the platform's; v1 and v1beta1 of each. */
const metaGroups = new Set(['meta.k8s.io', 'meta.platform.io']);
const metaVersions = new Set(['v1', 'v1beta1']);
const kinds = new Set<string>(['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList']);

export interface ConversionTarget {
  kind: ConversionKind;
  /** `meta.k8s.io/v1`… */
  apiVersion: string;
}

/** The conversion an Accept range's parameters ask for; undefined when it names none this server makes. */
export function conversionOf(params: Record<string, string>): ConversionTarget | undefined {
  const { as, g, v } = params;
  if (as === undefined || g === undefined || v === undefined) return undefined;
  if (!kinds.has(as) || !metaGroups.has(g) || !metaVersions.has(v)) return undefined;
  return { kind: as as ConversionKind, apiVersion: `${g}/${v}` };
}

/** What an endpoint can convert its bodies to. */
export interface EndpointConversions {
  /** Whether a range with these parameters is acceptable for a media type able to carry `carries`. */
  allows(carries: readonly string[] | undefined, params: Record<string, string>): boolean;
  /** The body converted as the negotiated range's parameters ask (unchanged when they ask nothing). */
  apply(params: Record<string, string>, body: unknown): unknown;
}

const includeValues: readonly string[] = ['None', 'Metadata', 'Object'];

function includeObjectOf(query: URLSearchParams): IncludeObject {
  const v = query.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (!includeValues.includes(v)) throw errors.badRequest(`unrecognized includeObject value: ${JSON.stringify(v)}`);
  return v as IncludeObject;
}

function notAcceptable(message: string): StatusError {
  return new StatusError(406, 'NotAcceptable', message);
}

/** A body as a list (items as served, each with its kind and apiVersion), or undefined for a single object. */
function listOf(def: ResourceDef, body: unknown): ListShape | undefined {
  if (body instanceof ListBody) {
    const long = longListOf(def, body);
    return { metadata: long.metadata, items: long.items(0, long.count) };
  }
  const o = body as { kind?: unknown; items?: unknown; metadata?: unknown };
  if (Array.isArray(o.items) && typeof o.kind === 'string' && o.kind.endsWith('List')) return { metadata: (o.metadata ?? {}) as Record<string, unknown>, items: o.items as ApiObject[] };
  return undefined;
}

function isObject(v: unknown): v is ApiObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A long list body's items a range at a time, as listOf gives them all. */
function longListOf(def: ResourceDef, body: ListBody): LongList {
  const apiVersion = apiVersionOf(def);
  return { metadata: body.head.metadata, count: body.itemCount, items: (start, end) => body.servedItems(start, end).map((o) => ({ kind: def.kind, apiVersion, ...o })) };
}

/** Convert one body (a list, an object, or a Status, which passes unchanged as in the reference). */
export function convertBody(def: ResourceDef, target: ConversionTarget, includeObject: IncludeObject, body: unknown): unknown {
  if (body instanceof ListBody && isLongList(body) && target.kind !== 'PartialObjectMetadata') {
    // converted a slice at a time as it is written: a long list's rows or items are never all made at once
    const long = longListOf(def, body);
    if (target.kind === 'Table') return lazyListTable(def, long, { apiVersion: target.apiVersion, includeObject });
    return lazyPartialObjectMetadataList(long, target.apiVersion);
  }
  if (!isObject(body) && !(body instanceof ListBody)) return body;
  if (!(body instanceof ListBody) && (body as ApiObject).kind === 'Status') return body;
  const list = listOf(def, body);
  switch (target.kind) {
    case 'Table':
      return list ? listTable(def, list, { apiVersion: target.apiVersion, includeObject }) : objectTable(def, body as ApiObject, { apiVersion: target.apiVersion, includeObject });
    case 'PartialObjectMetadata':
      if (list) throw notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (${def.listKind})`);
      return partialObjectMetadata(body as ApiObject, target.apiVersion);
    case 'PartialObjectMetadataList':
      if (!list) throw notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (${def.kind})`);
      return partialObjectMetadataList(list, target.apiVersion);
  }
}

/** Tables come from the kind's own printers: the resource and its status, never other subresources nor virtual kinds without columns (reviews). */
export function tablesServed(def: ResourceDef, subresource: string): boolean {
  return (!def.virtual || def.columns !== undefined) && (subresource === '' || subresource === 'status');
}

/** The conversions of one resource request's responses. */
export function endpointConversions(def: ResourceDef, subresource: string, query: URLSearchParams): EndpointConversions {
  const tables = tablesServed(def, subresource);
  return {
    allows(carries, params) {
      const t = conversionOf(params);
      if (!t || !carries?.includes(t.kind)) return false;
      return t.kind !== 'Table' || tables;
    },
    apply(params, body) {
      const t = conversionOf(params);
      return t ? convertBody(def, t, t.kind === 'Table' ? includeObjectOf(query) : 'Metadata', body) : body;
    },
  };
}

/** For watch events: the target and options, checked before the stream starts (400 for a bad includeObject). */
export function watchConversion(def: ResourceDef, params: Record<string, string>, query: URLSearchParams) {
  const t = conversionOf(params);
  if (!t) return undefined;
  const includeObject = t.kind === 'Table' ? includeObjectOf(query) : 'Metadata';
  return {
    key: `${t.kind};${t.apiVersion};${includeObject}`,
    target: t,
    convert: (obj: ApiObject, noHeaders: boolean): unknown =>
      t.kind === 'Table' ? objectTable(def, obj, { apiVersion: t.apiVersion, includeObject, noHeaders }) : partialObjectMetadata(obj, t.apiVersion),
  };
}
