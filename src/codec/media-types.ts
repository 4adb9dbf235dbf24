// Every media type the server speaks, in one table: its aliases, the roles it plays (response body,
// request body, watch stream, patch, OpenAPI document) and what implements it. Responses, request
// bodies, watch negotiation, PATCH and the OpenAPI routes all read this table, in its order, which is
// the server's preference order and the order 406/415 messages list.
//
// A new wire format is one entry plus its codec. Protobuf, for instance, joins as
//   { mediaType: 'application/vnd.platform.protobuf', aliases: [{ mediaType: 'application/vnd.kubernetes.protobuf',
//     acceptable: true }], roles: ['response', 'request', 'watch'], charset: false, codec: protobufCodec,
//     watch: protobufWatchFraming }
import type { Codec, WatchFraming } from './codec.ts';
import { jsonCodec, jsonWatchFraming } from './json.ts';
import { negotiate, parseMediaType } from './media.ts';
import { yamlCodec } from './yaml.ts';
import { PROTOBUF_ALIAS, PROTOBUF_MEDIA_TYPE, protobufCodec, protobufWatchFraming } from './protobuf.ts';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_REQUESTED, openApiV2ProtobufCodec } from './openapi-protobuf.ts';

export type MediaRole = 'response' | 'request' | 'watch' | 'patch' | 'openapi';

export type PatchType = 'json' | 'merge' | 'strategic';

export interface MediaAlias {
  readonly mediaType: string;
  /**
   * Whether a client may ask for the alias in Accept (and is answered under it). When false the alias
   * only names a request body, as `text/yaml` does.
   */
  readonly acceptable: boolean;
  /** Answered under the canonical name instead (a name clients send but cannot parse back). */
  readonly answeredAsCanonical?: boolean;
}

export interface PatchMedia {
  readonly type: PatchType;
  /** Listed in the OpenAPI documents' PATCH operations. */
  readonly documented: boolean;
}

export interface MediaTypeEntry {
  /** The canonical name: what negotiation offers and error messages list. */
  readonly mediaType: string;
  readonly aliases: readonly MediaAlias[];
  readonly roles: readonly MediaRole[];
  /** Text formats are answered with `; charset=utf-8`. */
  readonly charset: boolean;
  /** Body codec: needed by the response, request and openapi roles. */
  readonly codec?: Codec;
  /** Watch event framing: needed by the watch role. */
  readonly watch?: WatchFraming;
  /** Needed by the patch role. */
  readonly patch?: PatchMedia;
  /** The `as=` conversions a body in this type can carry (Table, PartialObjectMetadata, PartialObjectMetadataList). */
  readonly conversions?: readonly string[];
}

/** What an entry must carry to play a role; checked when a registry is built. */
interface RoleNeeds {
  response: { readonly codec: Codec };
  request: { readonly codec: Codec };
  openapi: { readonly codec: Codec };
  watch: { readonly watch: WatchFraming };
  patch: { readonly patch: PatchMedia };
}

export type EntryFor<R extends MediaRole> = MediaTypeEntry & RoleNeeds[R];

const needs: { [R in MediaRole]: keyof RoleNeeds[R] } = {
  response: 'codec',
  request: 'codec',
  openapi: 'codec',
  watch: 'watch',
  patch: 'patch',
};

/** The outcome of negotiating an Accept header. */
export interface Negotiated<E extends MediaTypeEntry> {
  readonly entry: E;
  /** The name the client asked for: the canonical one, or an acceptable alias. */
  readonly mediaType: string;
  /** The Content-Type of a body answered in it. */
  readonly contentType: string;
  /** The matched Accept range's parameters (`pretty`, `stream`). */
  readonly params: Record<string, string>;
}

/** The media types that play one role, in preference order. */
export class MediaTypeSet<E extends MediaTypeEntry> {
  /** Canonical names in preference order: the offers of negotiation, the list a 406/415 names. */
  readonly offers: readonly string[];
  /** The first entry: the one a request body without a Content-Type is read as. */
  readonly preferred: E | undefined;
  private readonly byName = new Map<string, E>();
  /** Offers, then acceptable aliases: a wildcard always picks a canonical name. */
  private readonly negotiable: string[];
  private readonly contentTypes = new Map<string, string>();

  constructor(readonly entries: readonly E[]) {
    this.offers = entries.map((e) => e.mediaType);
    this.preferred = entries[0];
    const acceptableAliases: string[] = [];
    for (const e of entries) {
      this.name(e.mediaType, e);
      for (const a of e.aliases) {
        this.name(a.mediaType, e, a.answeredAsCanonical ? e.mediaType : a.mediaType);
        if (a.acceptable) acceptableAliases.push(a.mediaType);
      }
    }
    this.negotiable = [...this.offers, ...acceptableAliases];
  }

  private name(mediaType: string, e: E, answeredAs = mediaType): void {
    this.byName.set(mediaType, e);
    this.contentTypes.set(mediaType, e.charset ? `${answeredAs}; charset=utf-8` : answeredAs);
  }

  /** The entry a Content-Type names (canonical name or alias; parameters and case ignored). */
  lookup(contentType: string): E | undefined {
    return this.byName.get(parseMediaType(contentType).essence);
  }

  /**
   * The entry for the client's Accept header, first by the client's ranking, then by ours. Ranges
   * asking for an `as=` conversion match only where `convertible` accepts them for the entry.
   */
  negotiate(accept: string | undefined, convertible?: (entry: E, params: Record<string, string>) => boolean): Negotiated<E> | undefined {
    const chosen = negotiate(accept, this.negotiable, convertible && ((offer, params) => convertible(this.byName.get(offer)!, params)));
    if (!chosen) return undefined;
    return { entry: this.byName.get(chosen.mediaType)!, mediaType: chosen.mediaType, contentType: this.contentTypes.get(chosen.mediaType)!, params: chosen.params };
  }

  /**
   * negotiate() for one body: when the chosen format has no schema for it (protobuf and an object
   * without a message), the client's other acceptable types among those that can write it, as the
   * reference does (api-machinery §6.1); `offers` is what a 406 then lists.
   */
  negotiateFor(
    accept: string | undefined,
    body: unknown,
    convertible?: (entry: E, params: Record<string, string>) => boolean,
  ): { chosen: Negotiated<E> | undefined; offers: readonly string[] } {
    const chosen = this.negotiate(accept, convertible);
    if (!chosen || chosen.entry.codec?.encodable?.(body) !== false) return { chosen, offers: this.offers };
    const able = new MediaTypeSet(this.entries.filter((e) => e.codec?.encodable?.(body) !== false));
    return { chosen: able.negotiate(accept, convertible), offers: able.offers };
  }
}

/** A table of media types, with one set per role. */
export class MediaTypeRegistry {
  private readonly sets: { [R in MediaRole]: MediaTypeSet<EntryFor<R>> };

  constructor(readonly entries: readonly MediaTypeEntry[]) {
    const names = new Set<string>();
    for (const e of entries) {
      for (const n of [e.mediaType, ...e.aliases.map((a) => a.mediaType)]) {
        if (n !== n.toLowerCase()) throw new Error(`media type ${n}: names are lower case`);
        if (names.has(n)) throw new Error(`media type ${n} is listed twice`);
        names.add(n);
      }
      for (const role of e.roles) {
        if (e[needs[role]] === undefined) throw new Error(`media type ${e.mediaType} plays ${role} without a ${needs[role]}`);
      }
    }
    this.sets = {
      response: this.collect('response'),
      request: this.collect('request'),
      openapi: this.collect('openapi'),
      watch: this.collect('watch'),
      patch: this.collect('patch'),
    };
  }

  private collect<R extends MediaRole>(role: R): MediaTypeSet<EntryFor<R>> {
    // the constructor checked that every entry playing `role` carries what the role needs
    return new MediaTypeSet(this.entries.filter((e) => e.roles.includes(role)) as EntryFor<R>[]);
  }

  role<R extends MediaRole>(role: R): MediaTypeSet<EntryFor<R>> {
    return this.sets[role];
  }
}

export const JSON_MEDIA_TYPE = 'application/json';
export const YAML_MEDIA_TYPE = 'application/yaml';
export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';

/** Tables and partial metadata: the reference converts to them in JSON and YAML. */
const ALL_CONVERSIONS = ['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList'];

const patchMedia = (mediaType: string, patch: PatchMedia): MediaTypeEntry => ({ mediaType, aliases: [], roles: ['patch'], charset: false, patch });

/** The server's media types, in preference order. */
export const mediaTypes = new MediaTypeRegistry([
  { mediaType: JSON_MEDIA_TYPE, aliases: [], roles: ['response', 'request', 'watch', 'openapi'], charset: true, codec: jsonCodec, watch: jsonWatchFraming, conversions: ALL_CONVERSIONS },
  {
    mediaType: YAML_MEDIA_TYPE,
    // names other clients give YAML bodies; responses are only offered as application/yaml
    aliases: [
      { mediaType: 'application/x-yaml', acceptable: false },
      { mediaType: 'text/yaml', acceptable: false },
    ],
    roles: ['response', 'request'],
    charset: true,
    codec: yamlCodec,
    conversions: ALL_CONVERSIONS,
  },
  // typed messages of every served kind (protobuf.ts); objects without a schema fall back (negotiateFor)
  { mediaType: PROTOBUF_MEDIA_TYPE, aliases: [{ mediaType: PROTOBUF_ALIAS, acceptable: true }], roles: ['response', 'request', 'watch'], charset: false, codec: protobufCodec, watch: protobufWatchFraming },
  // the swagger 2.0 document as gnostic's protobuf message (kubectl's `explain` and validation ask for it)
  // (clients ask with `@v1.0`, which is not a valid media type to parse back: answered as `.v1.0`)
  {
    mediaType: OPENAPI_V2_PROTOBUF,
    aliases: [{ mediaType: OPENAPI_V2_PROTOBUF_REQUESTED, acceptable: true, answeredAsCanonical: true }],
    roles: ['openapi'],
    charset: false,
    codec: openApiV2ProtobufCodec,
  },
  patchMedia(JSON_PATCH, { type: 'json', documented: true }),
  patchMedia(MERGE_PATCH, { type: 'merge', documented: true }),
  // accepted, but the published OpenAPI documents have never listed it
  patchMedia(STRATEGIC_MERGE_PATCH, { type: 'strategic', documented: false }),
]);
