// Shared by the authn-tls-* tests: a development PKI made by `portcullis certs init`'s code, and a
// tiny node:https server that runs the real TLS options + authenticator and answers the UserInfo.
import { createServer, type Server } from 'node:https';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { initDevPki, type DevPkiFiles } from '../../src/certs/pki.ts';
import { buildTlsServerOptions, peerChainOf } from '../../src/authn/tls.ts';
import { buildAuthenticator, type AuthnOptions, type BuiltAuthenticator } from '../../src/authn/build.ts';
import { StatusError } from '../../src/request/errors.ts';

const run = promisify(execFile);

export interface Harness {
  pki: DevPkiFiles;
  dir: string;
  url: string;
  port: number;
  server: Server;
  built: BuiltAuthenticator;
  close(): Promise<void>;
}

export function makePki(): DevPkiFiles {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-authn-'));
  return initDevPki(dir);
}

/** The PKI as the real command makes it: `portcullis certs init --dir <tmp>` in a child process. */
export async function makePkiWithCli(): Promise<DevPkiFiles> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-authn-cli-'));
  await run(process.execPath, ['--import', 'tsx', 'src/main.ts', 'certs', 'init', '--dir', dir], { timeout: 60000 });
  const files = initDevPki(dir);
  if (files.created.length > 0) throw new Error(`certs init left files out: ${files.created.join(', ')}`);
  return files;
}

export function writeTemp(dir: string, name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text, { mode: 0o600 });
  return p;
}

export async function startServer(pki: DevPkiFiles, opts: AuthnOptions): Promise<Harness> {
  const built = await buildAuthenticator(opts);
  const clientCaFiles = [opts.clientCaFile, opts.requestHeader?.clientCaFile].filter((f): f is string => !!f);
  const server = createServer(buildTlsServerOptions({ certFile: pki.servingCert, keyFile: pki.servingKey, clientCaFiles }), (req, res) => {
    // authenticate may settle at once, throwing its 401: a promise either way
    Promise.resolve()
      .then(() => built.authenticate({ headers: req.headers, peerCertificates: peerChainOf(req.socket), headersDistinct: req.headersDistinct }))
      .then((user) => {
        // What a later layer would still see of the headers authentication was meant to consume.
        const leftover = Object.keys(req.headers).filter((h) => h === 'authorization' || h.startsWith('x-remote-'));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ user, leftover }));
      })
      .catch((err: unknown) => {
        const e = err instanceof StatusError ? err : new StatusError(500, 'InternalError', String(err));
        res.writeHead(e.code, { ...e.headers, 'content-type': 'application/json' });
        res.end(JSON.stringify(e.toStatus()));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    pki,
    dir: pki.dir,
    url: `https://127.0.0.1:${port}`,
    port,
    server,
    built,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ClientIdentity {
  certPem?: string;
  keyPem?: string;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { user?: { name: string; uid?: string; groups: string[]; extra?: Record<string, string[]> }; leftover?: string[]; kind?: string; reason?: string; code?: number; message?: string };
}

/** GET over TLS trusting the PKI's CA, optionally presenting a client certificate. */
export async function get(h: Harness, id: ClientIdentity = {}, headers: Record<string, string | string[]> = {}): Promise<Reply> {
  const agent = new Agent({ connect: { ca: readFileSync(h.pki.caCert, 'utf8'), cert: id.certPem, key: id.keyPem } });
  try {
    const res = await request(`${h.url}/api/v1/namespaces`, { dispatcher: agent, headers });
    const body = (await res.body.json()) as Reply['body'];
    return { status: res.statusCode, headers: res.headers, body };
  } finally {
    await agent.close();
  }
}

export function identity(certFile: string, keyFile: string): ClientIdentity {
  return { certPem: readFileSync(certFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8') };
}
