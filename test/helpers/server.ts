import { createServer, type PortcullisServer } from '../../src/server/server.ts';
import type { ServerOptions } from '../../src/config/options.ts';

export interface TestServer {
  server: PortcullisServer;
  url: string;
  /** fetch relative to the server; JSON body objects are encoded for you. */
  req(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience: response JSON is inspected loosely
  json: any;
}

/** One HTTP request against `base`; object bodies are sent as JSON, the answer parsed when it is JSON. */
export async function request(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    if (typeof body === 'string' || body instanceof Uint8Array) init.body = body as string;
    else {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A real server on a loopback port (plain HTTP), started in this process; AlwaysAllow unless asked. */
export async function startServer(opts: Partial<ServerOptions> = {}): Promise<TestServer> {
  const server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'], ...opts }, { log: () => {} });
  const url = server.insecureUrl!;
  return {
    server,
    url,
    req: (method, path, body, headers) => request(url, method, path, body, headers),
    close: () => server.close(),
  };
}
