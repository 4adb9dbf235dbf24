// A TCP upstream that answers each request head with scripted bytes (odd but valid HTTP/1.1, or
// broken), for the tests of the proxy's upstream client. Bodies of requests are not read: the heads
// these tests send have none.
import net, { type AddressInfo } from 'node:net';

/** What to send for one request: the bytes, or with how to send them. null: drop the connection. */
export type ScriptedAnswer = string | null | { text: string; /** Written in two pieces, the second 2 ms later. */ split?: boolean; /** End the connection after it. */ close?: boolean };

export interface Scripted { port: number; connections: () => number; requests: string[]; close(): Promise<void> }

/** Answers each request head with `answer(n, head)` (n counts requests over all connections). */
export async function scripted(answer: (n: number, head: string) => ScriptedAnswer): Promise<Scripted> {
  let connections = 0;
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString('latin1');
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const head = buf.slice(0, end);
        buf = buf.slice(end + 4);
        requests.push(head);
        const out = answer(requests.length, head);
        if (out === null) { s.destroy(); continue; }
        const { text, split = false, close = false } = typeof out === 'string' ? { text: out } : out;
        const cut = split ? Math.floor(text.length / 2) : text.length;
        s.write(text.slice(0, cut), 'latin1');
        const rest = (): void => {
          if (s.destroyed) return;
          if (cut < text.length) s.write(text.slice(cut), 'latin1');
          if (close) s.end();
        };
        if (split) setTimeout(rest, 2);
        else rest();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    requests,
    close: () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
}
