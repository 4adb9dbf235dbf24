import type { UserInfo } from '../authn/types.ts';
import type { Resolution } from '../frontdoor/front-door.ts';

/** What the middleware chain learns about a request, in order: the front door's resolution, then the user. */
export interface RequestState extends Resolution {
  user: UserInfo;
}
