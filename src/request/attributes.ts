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
