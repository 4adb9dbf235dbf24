import type { RequestAttributes } from '../request/attributes.ts';
import type { UserInfo } from '../authn/types.ts';

/** What the middleware chain learns about a request, in order: attributes, then user. */
export interface RequestState {
  attrs: RequestAttributes;
  query: URLSearchParams;
  user: UserInfo;
  /** Long-running requests (watch, proxy, log…) are exempt from the in-flight limit and timeout. */
  longRunning: boolean;
}
