import type { ResolvedRequest } from '../request/attributes.ts';
import type { UserInfo } from '../authn/types.ts';

/** What the middleware chain learns about a request, in order: the resolved request, then user. */
export interface RequestState {
  /** Attributes (what authz decides on) and target (what the handler acts on), from one resolution. */
  resolved: ResolvedRequest;
  query: URLSearchParams;
  user: UserInfo;
  /** Long-running requests (watch, proxy, log…) are exempt from the in-flight limit and timeout. */
  longRunning: boolean;
}
