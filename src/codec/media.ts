// Media-type parsing and content negotiation (api-machinery §6.1). Which media types the server offers
// for what is media-types.ts's business; this file only reads headers and matches them.

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

export function parseMediaType(value: string): { essence: string; params: Record<string, string> } {
  const [head, ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const p of rest) {
    const i = p.indexOf('=');
    if (i < 0) continue;
    params[p.slice(0, i).trim().toLowerCase()] = p.slice(i + 1).trim().replace(/^"|"$/g, '');
  }
  return { essence: head.trim().toLowerCase(), params };
}

const ANY: readonly MediaRange[] = Object.freeze([Object.freeze({ type: '*', subtype: '*', params: Object.freeze({}), q: 1 })]);

/** Parsed Accept headers by their text: clients send the same few again and again. Bounded. */
const parsedAccept = new Map<string, readonly MediaRange[]>();
const MAX_PARSED_ACCEPT = 256;
const MAX_CACHED_ACCEPT_LENGTH = 256;

/** The ranges of an Accept header, best first; shared and frozen (never change them). */
export function parseAccept(header: string | undefined): readonly MediaRange[] {
  if (!header) return ANY;
  const known = parsedAccept.get(header);
  if (known) return known;
  const ranges = Object.freeze(parseAcceptText(header).map((r) => Object.freeze({ ...r, params: Object.freeze(r.params) })));
  if (header.length <= MAX_CACHED_ACCEPT_LENGTH) {
    if (parsedAccept.size >= MAX_PARSED_ACCEPT) parsedAccept.delete(parsedAccept.keys().next().value!);
    parsedAccept.set(header, ranges);
  }
  return ranges;
}

function parseAcceptText(header: string): MediaRange[] {
  if (!header.trim()) return [{ type: '*', subtype: '*', params: {}, q: 1 }];
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    if (!part.trim()) continue;
    const { essence, params } = parseMediaType(part);
    const [type, subtype = '*'] = essence.split('/');
    let q = 1;
    if (params.q !== undefined) {
      q = Number(params.q);
      if (!Number.isFinite(q)) q = 0;
      delete params.q;
    }
    ranges.push({ type, subtype, params, q });
  }
  // stable sort by q, more specific first at equal q
  return ranges
    .map((r, i) => ({ r, i }))
    .sort((a, b) => b.r.q - a.r.q || specificity(b.r) - specificity(a.r) || a.i - b.i)
    .map((x) => x.r);
}

function specificity(r: MediaRange): number {
  return (r.type === '*' ? 0 : 2) + (r.subtype === '*' ? 0 : 1);
}

/** Whether `range` covers the media type `offer` (`type/subtype`), without splitting it. */
function matches(range: MediaRange, offer: string): boolean {
  const slash = offer.indexOf('/');
  const typeOk = range.type === '*' || (slash === range.type.length && offer.startsWith(range.type));
  return typeOk && (range.subtype === '*' || (offer.length - slash - 1 === range.subtype.length && offer.endsWith(range.subtype)));
}

/** Parameters that ask for a conversion (`as`, `g`, `v`): such ranges match only where the caller's `convertible` accepts them. */
const conversionParams = ['as', 'g', 'v'];
/** A server version this server never serves output in: such ranges never match. */
const unsupportedParams = ['sv'];

/**
 * Pick the first offered media type (in the server's order) that the client's best-ranked acceptable
 * range matches. Returns the offer and the matched range's params. A range asking for a conversion
 * matches an offer only when `convertible(offer, params)` says so (never without the callback).
 */
export function negotiate(
  accept: string | undefined,
  offers: string[],
  convertible?: (offer: string, params: Record<string, string>) => boolean,
): { mediaType: string; params: Record<string, string> } | undefined {
  for (const range of parseAccept(accept)) {
    if (range.q <= 0) continue;
    if (unsupportedParams.some((p) => p in range.params)) continue;
    const converts = conversionParams.some((p) => p in range.params);
    if (converts && !convertible) continue;
    for (const offer of offers) {
      if (matches(range, offer)) {
        if (converts && !convertible!(offer, range.params)) continue;
        return { mediaType: offer, params: range.params };
      }
    }
  }
  return undefined;
}
