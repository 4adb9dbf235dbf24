// What a wire format implements: a body codec (request and response bodies) and, for formats that
// can carry a watch stream, its framing. The media-type registry (media-types.ts) says which media
// type uses which.

/** The event types a watch stream carries: the store's changes, and ERROR (a Status) to end on a failure. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR';

/** A body format the server can read and write. */
export interface Codec {
  readonly mediaType: string;
  encode(value: unknown, pretty: boolean): string | Buffer;
  decode(body: Buffer): unknown;
  /** False for a value this format has no schema for (a typed format): negotiation then falls back. */
  encodable?(value: unknown): boolean;
}

/** How one watch event is framed on a stream in a format (JSON: one object per line). */
export interface WatchFraming {
  frame(type: WatchEventType, object: unknown): Buffer;
}
