import type { ResourceDef } from '../api/catalogue.ts';
import type { StatusError } from './errors.ts';

/** What a request asks to do, computed once by the request-info resolver and read by every layer. */
export interface RequestAttributes {
  isResourceRequest: boolean;
  /** URL path without the query. */
  path: string;
  /** get list watch create update patch delete deletecollection proxy redirect; lower-cased method for non-resource requests. */
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after resource/name/subresource (for proxy paths). */
  parts: string[];
}

/**
 * What a resource handler acts on. It is derived in the same step and from the same attributes the
 * authorizer decides on, so the two cannot disagree; nothing downstream reads the path again.
 */
export interface RequestTarget {
  readonly def: ResourceDef;
  /** The storage namespace: the attributes' namespace for namespaced kinds, '' for cluster-scoped ones. */
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  /** The verb the authorizer saw; the handler picks its operation by it. */
  readonly verb: string;
}

/** A request resolved once, frozen: the authorizer reads `attrs`, the resource handler `target`. */
export interface ResolvedRequest {
  readonly attrs: Readonly<RequestAttributes>;
  /** Set for a resource request that addresses something this server serves. */
  readonly target?: RequestTarget;
  /** Set when the path addresses nothing: answered after authorization, nothing is acted on. */
  readonly refusal?: StatusError;
}
