// Shared by the accounts-* and namespace-* tests: service-account keys in a temp dir, a bounded wait
// for the controllers' asynchronous work (tests only: the server itself never polls), and reading an
// account's token through the API.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestServer } from '../helpers/server.ts';

export interface TestKeys {
  dir: string;
  /** RSA private key (PKCS#8 PEM); '' unless asked for. */
  rsa: string;
  /** EC P-256 private key. */
  ec: string;
  /** An RSA key the server does not know, for forged tokens; '' unless asked for. */
  foreign: string;
  cleanup(): void;
}

/** Key files in a fresh temp dir. RSA generation is slow-ish, so RSA keys are made only when asked for. */
export function makeKeys(opts: { rsa?: boolean } = {}): TestKeys {
  const rsa = () => pkcs8(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
  const dir = mkdtempSync(path.join(tmpdir(), 'portcullis-sa-'));
  const write = (name: string, pem: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, pem, { mode: 0o600 });
    return file;
  };
  return {
    dir,
    rsa: opts.rsa ? write('sa-rsa.key', rsa()) : '',
    ec: write('sa-ec.key', pkcs8(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)),
    foreign: opts.rsa ? write('foreign.key', rsa()) : '',
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function pkcs8(k: KeyObject): string {
  return String(k.export({ type: 'pkcs8', format: 'pem' }));
}

/** Poll until `check` returns a value (not undefined); fail after `ms`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface AccountToken {
  token: string;
  secretName: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience: objects are inspected loosely
  account: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  secret: any;
}

/** What accountToken asks of a server: requests whose JSON answers are inspected loosely. */
export interface JsonRequests {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience: response JSON is inspected loosely
  req(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any }>;
}

/** Wait until the account references a token secret holding a token, and return it. */
export function accountToken(srv: JsonRequests, ns: string, name: string, headers: Record<string, string> = {}, except?: string): Promise<AccountToken> {
  return waitFor(`token of ${ns}/${name}`, async () => {
    const sa = await srv.req('GET', `/api/v1/namespaces/${ns}/serviceaccounts/${name}`, undefined, headers);
    if (sa.status !== 200) return undefined;
    for (const ref of sa.json.secrets ?? []) {
      if (ref.name === except) continue;
      const s = await srv.req('GET', `/api/v1/namespaces/${ns}/secrets/${ref.name}`, undefined, headers);
      if (s.status === 200 && s.json.data?.token) {
        return { token: Buffer.from(s.json.data.token, 'base64').toString(), secretName: ref.name, account: sa.json, secret: s.json };
      }
    }
    return undefined;
  });
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The payload of a JWT, unverified. */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
}
