// exec, attach and portforward: the client's connection upgrade (SPDY/3.1 or a WebSocket channel
// subprotocol) is sent on to the kubelet with Node's HTTP client, and once the kubelet switches
// protocols the two sockets are joined byte for byte. A kubelet that refuses the upgrade has its
// answer relayed as it gave it.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { StatusError } from '../../request/errors.ts';
import { forwardHeaders, goError, type Transport } from './transport.ts';

function head(status: number, message: string | undefined, rawHeaders: string[], drop: Set<string>): string {
  const lines = [`HTTP/1.1 ${status} ${message ?? STATUS_CODES[status] ?? ''}`];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (!drop.has(rawHeaders[i].toLowerCase())) lines.push(`${rawHeaders[i]}: ${rawHeaders[i + 1]}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * Join `socket` (the client's, already authorized) to the kubelet at `url`. Resolves once the
 * exchange is under way; a network failure before the kubelet answers is thrown as the reference's Status.
 */
export function proxyUpgrade(transport: Transport, url: URL, req: IncomingMessage, socket: Duplex, clientHead: Buffer): Promise<void> {
  const method = req.method ?? 'GET';
  const out = transport.upgradeRequest(url, method, { ...forwardHeaders(req.headers, true, true), host: url.host });
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (err?: StatusError) => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve();
    };
    out.on('timeout', () => out.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    out.on('error', (e) => {
      // before the kubelet answered, the caller writes the Status; after, there is nothing left to say
      if (!settled) settle(new StatusError(500, '', goError(method, url, e)));
      else socket.destroy();
    });
    out.on('upgrade', (res: IncomingMessage, upstream: Duplex, upstreamHead: Buffer) => {
      out.setTimeout(0);
      socket.write(head(res.statusCode ?? 101, res.statusMessage, res.rawHeaders, new Set()));
      if (upstreamHead.length) socket.write(upstreamHead);
      if (clientHead.length) upstream.write(clientHead);
      // byte for byte both ways; either end closing (or failing) closes the other
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
      upstream.pipe(socket);
      socket.pipe(upstream);
      socket.on('close', () => upstream.destroy());
      upstream.on('close', () => socket.destroy());
      settle();
    });
    out.on('response', (res: IncomingMessage) => {
      // the kubelet answered without switching (an error, or a client that asked for no upgrade it serves)
      socket.write(head(res.statusCode ?? 502, res.statusMessage, res.rawHeaders, new Set(['connection', 'transfer-encoding', 'keep-alive'])).replace(/\r\n\r\n$/, '\r\nConnection: close\r\n\r\n'));
      res.pipe(socket);
      res.on('error', () => socket.destroy());
      settle();
    });
    // an upgrade request has no body of its own: what follows belongs to the upgraded connection
    out.end();
  });
}
