// The request target, checked before any route is matched: a path that could mean two things (to us
// and to the upstream) is refused with 400 rather than normalised, so the route and the checks see
// exactly what the upstream will act on.
import { errors, type StatusError } from '../request/errors.ts';

export interface CleanTarget {
  /** The path decoded, for matching and authorization. */
  path: string;
  /** The path as received, forwarded unchanged (it decodes to `path`). */
  rawPath: string;
  /** The query without `?` ('' when none). */
  query: string;
}

const MAX_TARGET = 8192;

/** The target split and checked, or the 400 to answer. */
export function cleanTarget(url: string | undefined): CleanTarget | StatusError {
  const target = url ?? '';
  if (!target.startsWith('/') || target.length > MAX_TARGET) return errors.badRequest('the request target must be an absolute path');
  // no request target has a fragment (RFC 9112 §3.2); some upstreams cut the path at `#`, so the
  // route and the checks would read `/admin#/healthz` where the upstream acts on `/admin`
  if (target.includes('#')) return errors.badRequest('the request target may not contain #');
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? '' : target.slice(q + 1);
  // encoded separators and backslashes are read as separators by some upstreams and not by others
  if (/%2f|%5c|%00|\\/i.test(rawPath)) return errors.badRequest('encoded slashes, backslashes and NUL are not allowed in the path');
  let path: string;
  try {
    // nothing to decode without a `%`: no copy of the path per request
    path = rawPath.includes('%') ? decodeURIComponent(rawPath) : rawPath;
  } catch {
    return errors.badRequest('the path is not valid percent-encoding');
  }
  // each segment between slashes, found by index (no array per request)
  for (let start = 1; start <= path.length; ) {
    let end = path.indexOf('/', start);
    if (end < 0) end = path.length;
    const len = end - start;
    // A segment's `;parameters` end it for some upstreams (Tomcat, Jetty and Spring read `..;x` as
    // `..`), so a dot segment is one or two dots, then the segment's end or a `;`. Read within the
    // segment only: a search past it would make a path of many segments cost its length squared.
    let dotsEnd = start;
    while (dotsEnd < end && dotsEnd - start < 3 && path.charCodeAt(dotsEnd) === 0x2e) dotsEnd++;
    const dots = dotsEnd - start;
    if ((dots === 1 || dots === 2) && (dotsEnd === end || path.charCodeAt(dotsEnd) === 0x3b)) {
      return errors.badRequest('the path may not contain . or .. segments (with or without ;parameters)');
    }
    // a trailing slash is an empty last segment and fine; `//` inside is not
    if (len === 0 && end < path.length) return errors.badRequest('the path may not contain empty segments (//)');
    start = end + 1;
  }
  return { path, rawPath, query };
}
