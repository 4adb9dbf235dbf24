import type { Catalogue } from '../api/catalogue.ts';
import type { ResolvedRequest } from '../request/attributes.ts';
import { resolveRequest } from '../request/resolve.ts';

const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** The front door's first step: what the request line asks for, resolved once. */
export interface Resolution {
  /** Attributes (what authz decides on) and target (what the handler acts on), from one resolution. */
  resolved: ResolvedRequest;
  query: URLSearchParams;
  /** Long-running requests (watch, proxy, log…) are exempt from the in-flight limit and timeout. */
  longRunning: boolean;
}

/**
 * Resolves the path once (attributes + target); a path that routes nowhere is refused by the handler,
 * after authz. From the request line alone: the Host header plays no part.
 */
export function resolveRequestLine(catalogue: Catalogue, method: string, path: string, querystring: string): Resolution {
  const query = new URLSearchParams(querystring);
  const resolved = resolveRequest(catalogue, method, path, query);
  const a = resolved.attrs;
  const longRunning = a.isResourceRequest && (a.verb === 'watch' || a.verb === 'proxy' || longRunningSubresources.has(a.subresource));
  return { resolved, query, longRunning };
}

/** Path and query string of an origin-form request target (`/api/v1/pods?watch=1`). */
export function splitRequestTarget(url: string): { path: string; querystring: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, querystring: '' } : { path: url.slice(0, q), querystring: url.slice(q + 1) };
}
