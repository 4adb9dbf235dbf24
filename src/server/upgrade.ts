// Connection upgrades (server.on('upgrade')): the request passes the same front door as every other
// request, and a refusal is written as an HTTP/1.1 Status response on the raw socket. An admitted
// request goes to the upgrade handler of its subresource (exec, attach, portforward: the kubelet's); with
// no handler it is served as the plain request it also is, as the reference serves it, so the
// answer for its path (a 404 for a path that routes nowhere, a list for a collection) stays the same.
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Admitted, FrontDoor } from '../frontdoor/front-door.ts';
import { errors, StatusError } from '../request/errors.ts';
import type { Authorizer } from '../authz/types.ts';
import { authorizeRequest } from '../frontdoor/authorize.ts';
import { UPGRADE_SUBRESOURCES, type KubeletService } from '../registry/kubelet/service.ts';
import { proxyUpgrade } from '../registry/kubelet/upgrade.ts';
import { redactCredentials } from './middleware/errors.ts';
import { writeStatusResponse } from '../request/status-response.ts';

export type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Takes over the connection of an admitted upgrade request. */
export type UpgradeHandler = (admitted: Admitted, req: IncomingMessage, socket: Duplex, head: Buffer) => void | Promise<void>;

export interface UpgradeDeps {
  door: FrontDoor;
  /** By subresource (`exec`, `attach`, `portforward`). */
  handlers: ReadonlyMap<string, UpgradeHandler>;
  /** Serve an admitted request as a plain HTTP request (the filter chain after the front door). */
  serveAdmitted(req: IncomingMessage, res: ServerResponse, admitted: Admitted): void;
  log: (msg: string) => void;
}

/** Answer on a socket the HTTP parser has let go of, through Node's own response writer. */
function responseOn(req: IncomingMessage, socket: Duplex): ServerResponse {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.on('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  return res;
}

export function upgradeListener(d: UpgradeDeps): UpgradeListener {
  return (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    // read now: authentication removes the header once it has used it
    const authorization = req.headers.authorization;
    d.door
      .pass(req)
      .then(
        async (admitted) => {
          const handler = admitted.resolved.target && d.handlers.get(admitted.resolved.target.subresource);
          if (handler) {
            // a refusal before the handler took the connection (no host, no container, kubelet down) is a Status like any other
            return Promise.resolve(handler(admitted, req, socket, head)).catch((e: unknown) => {
              if (!(e instanceof StatusError) || socket.destroyed) throw e;
              writeStatusResponse(socket, e);
            });
          }
          if (head.length) socket.unshift(head);
          d.serveAdmitted(req, responseOn(req, socket), admitted);
        },
        (e: unknown) => {
          const err = e instanceof StatusError ? e : errors.internal(e);
          if (err.logDetail) {
            const { id, detail } = err.logDetail;
            const text = detail instanceof Error ? (detail.stack ?? detail.message) : String(detail);
            d.log(`${err.code} ${err.reason} (correlation id ${id}) on upgrade ${req.method} ${req.url}: ${redactCredentials(text, authorization)}`);
          }
          writeStatusResponse(socket, err);
        },
      )
      .catch((e: unknown) => {
        // a handler failed after taking the connection: nothing sensible can be written any more
        d.log(`portcullis: upgrade ${req.method} ${req.url}: ${e instanceof Error ? e.message : String(e)}`);
        socket.destroy();
      });
  };
}

/**
 * exec, attach and portforward, joined to the pod's kubelet. The front door authorized the verb of
 * the method as the reference resolves it (POST → create, GET → get on pods/exec); a GET upgrade
 * (the WebSocket protocols kubectl ≥1.30 tries first) must also be allowed `create`, as the modern
 * reference requires (AuthorizePodWebsocketUpgradeCreatePermission), so `get` alone never opens a shell.
 * Checked before anything is sent to the kubelet.
 */
export function kubeletUpgradeHandlers(kubelet: KubeletService, authorizer: Authorizer): Map<string, UpgradeHandler> {
  const handler: UpgradeHandler = async (admitted, req, socket, head) => {
    const target = admitted.resolved.target!;
    if (admitted.resolved.attrs.verb !== 'create') await authorizeRequest(authorizer, admitted.user, { ...admitted.resolved.attrs, verb: 'create' });
    const url = kubelet.connectUrl(target, admitted.query, admitted.user);
    await proxyUpgrade(kubelet.transport, url, req, socket, head);
  };
  return new Map([...UPGRADE_SUBRESOURCES].map((s) => [s, handler]));
}
