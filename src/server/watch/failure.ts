import { errors, StatusError } from '../../request/errors.ts';
import { RevisionTooOld, WatchHubClosed } from '../../store/watch-hub.ts';

/** The Status a watch that could not start ends with (its one ERROR event). */
export function watchFailure(e: unknown): StatusError {
  if (e instanceof StatusError) return e;
  if (e instanceof RevisionTooOld) return errors.expired(`too old resource version: ${e.requested} (${e.oldest})`);
  if (e instanceof WatchHubClosed) return errors.serviceUnavailable('the server is shutting down');
  return errors.internal(e);
}
