// A TCP proxy in front of one etcd member that can lose every answer: requests still reach etcd
// (and are applied), nothing comes back. That is a write whose outcome the client cannot know,
// made on purpose: the member answered, the answer vanished on the way.
import { connect, createServer, type Socket } from 'node:net';

export interface LossyProxy {
  /** http://127.0.0.1:<port>, to give as an etcd endpoint. */
  url: string;
  /** From now on, answers are dropped (true); or connections are cut and answers flow again (false). */
  dropAnswers(drop: boolean): void;
  close(): Promise<void>;
}

export async function startLossyProxy(target: string): Promise<LossyProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let dropping = false;
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!dropping) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    dropAnswers(drop) {
      dropping = drop;
      // a stream that lost bytes cannot be read on: the client connects again
      if (!drop) for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
