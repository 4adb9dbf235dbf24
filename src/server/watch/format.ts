import type { ApiObject } from '../../api/object.ts';
import type { WatchEventType } from '../../codec/codec.ts';
import type { EntryFor } from '../../codec/media-types.ts';
import type { PreparedWatch } from '../../registry/watch.ts';
import type { WatchChange } from '../../store/watch-hub.ts';

/** A wire format for the events of one watch. Watchers with the same `id` share one encoded copy of each change. */
export interface WatchFormat {
  readonly id: string;
  /** One framed event: the object as stored (ERROR: a Status), presented and serialised by the format. */
  encode(type: WatchEventType, object: unknown): Buffer;
  /** While true, this watcher's events are its own, not shared (a Table watch's first event carries the column definitions). */
  unshared?(): boolean;
}

/** An `as=` conversion of a watch's event objects (tables, partial metadata). */
export interface WatchConversion {
  /** Names the conversion and its options: part of the format's id. */
  readonly key: string;
  /** The presented object converted; `noHeaders` after the watcher's first event (tables' column definitions). */
  convert(object: ApiObject, noHeaders: boolean): unknown;
}

/** The negotiated framing of the objects as this watch serves them (api version, kind, selfLink). */
export function watchFormat(media: EntryFor<'watch'>, prepared: PreparedWatch, conversion?: WatchConversion): WatchFormat {
  const { frame } = media.watch;
  if (conversion) {
    let first = true;
    return {
      id: `${media.mediaType} ${prepared.presentation} ${conversion.key}`,
      encode: (type, object) => {
        if (type === 'ERROR') return frame(type, object);
        const converted = conversion.convert(prepared.present(object as ApiObject), !first);
        first = false;
        return frame(type, converted);
      },
      unshared: () => first,
    };
  }
  return {
    id: `${media.mediaType} ${prepared.presentation}`,
    encode: (type, object) => frame(type, type === 'ERROR' ? object : prepared.present(object as ApiObject)),
  };
}

/**
 * Encoded changes, one copy per change and format shared by every watcher: at hundreds of
 * cluster-wide watchers, encoding per watcher is what would cost. Copies live as long as the change.
 */
export class SharedEncodings {
  private readonly encoded = new WeakMap<WatchChange, Map<string, Buffer>>();
  private lastChange: WatchChange | undefined;
  private lastEncoded: Map<string, Buffer> | undefined;

  encode(change: WatchChange, format: WatchFormat): Buffer {
    if (!change.shared || format.unshared?.()) return format.encode(change.type, change.object);
    // every watcher of one dispatch asks about the same change: skip the WeakMap for the repeats
    let perFormat = change === this.lastChange ? this.lastEncoded! : this.encoded.get(change);
    if (!perFormat) {
      perFormat = new Map();
      this.encoded.set(change, perFormat);
    }
    this.lastChange = change;
    this.lastEncoded = perFormat;
    let buf = perFormat.get(format.id);
    if (!buf) {
      buf = format.encode(change.type, change.object);
      perFormat.set(format.id, buf);
    }
    return buf;
  }
}
