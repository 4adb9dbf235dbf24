// The outermost filter: every request, answered or failed, is counted in the metrics and (with
// --log-requests) logged as one JSON line. It wraps the error filter, so the code it sees is the one
// the client gets; `finally` keeps a request that throws past everything from going unrecorded.
import type Koa from 'koa';
import { jsonLine } from '../../observability/log.ts';
import type { ServerMetrics } from '../../observability/metrics.ts';
import type { RequestState } from '../state.ts';

export interface ObserveDeps {
  metrics?: ServerMetrics;
  /** The log sink for request lines; absent when --log-requests is off. */
  log?: (line: string) => void;
}

export function observeMiddleware(d: ObserveDeps): Koa.Middleware<RequestState> {
  return async (ctx, next) => {
    const t0 = performance.now();
    try {
      await next();
    } finally {
      const seconds = (performance.now() - t0) / 1000;
      // before the front door resolved it (never, in practice) a request has only its method
      const attrs = ctx.state.resolved?.attrs;
      const verb = attrs?.verb ?? ctx.method.toLowerCase();
      // the metric's label only from what the catalogue serves: unknown paths must not mint series
      const target = ctx.state.resolved?.target;
      const served = target ? (target.def.group ? `${target.def.plural}.${target.def.group}` : target.def.plural) : '';
      const resource = served && target?.subresource ? `${served}/${target.subresource}` : served;
      const code = ctx.status;
      d.metrics?.request(verb, resource, code, ctx.state.longRunning ? undefined : seconds);
      // the path without its query (a query may carry anything); the user's name, never a credential
      d.log?.(
        jsonLine('request', {
          method: ctx.method,
          path: ctx.path,
          verb,
          resource: attrs?.isResourceRequest ? attrs.resource : undefined,
          namespace: attrs?.namespace || undefined,
          code,
          user: ctx.state.user?.name,
          ms: Number((seconds * 1000).toFixed(1)),
        }),
      );
    }
  };
}
