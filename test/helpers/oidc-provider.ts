// An OpenID Connect provider of the tests: a real https server (the development PKI's serving
// certificate) with discovery and a JWKS, keys that can be rotated mid-run, counters of what was
// fetched, and a signer for id_tokens (good, expired, foreign, alg:none).
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, base64url, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import type { DevPkiFiles } from '../../src/certs/pki.ts';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export interface OidcProvider {
  issuer: string;
  port: number;
  /** How many times each document was fetched. */
  fetches: { discovery: number; jwks: number };
  /** Replace the published keys by a fresh one (the old one no longer verifies). */
  rotate(): Promise<void>;
  /** An id_token signed by the current key; claims override the defaults (iss, aud, sub, iat, exp). */
  sign(claims?: JWTPayload, opts?: { kid?: string }): Promise<string>;
  /** A token signed by a key the provider never published. */
  signForeign(claims?: JWTPayload): Promise<string>;
  /** An unsigned token (`alg: none`). */
  unsigned(claims?: JWTPayload): string;
  close(): Promise<void>;
}

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** Start the provider; `port` 0 picks one (pass a fixed one to bring a provider up late). */
export async function startOidcProvider(pki: DevPkiFiles, opts: { port?: number; clientId: string }): Promise<OidcProvider> {
  let key = await newKey();
  const fetches = { discovery: 0, jwks: 0 };
  let issuer = '';
  const server: Server = createServer({ cert: readFileSync(pki.servingCert), key: readFileSync(pki.servingKey) }, (req, res) => {
    const send = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      fetches.discovery++;
      send({ issuer, jwks_uri: `${issuer}/keys`, response_types_supported: ['id_token'], id_token_signing_alg_values_supported: ['RS256'] });
    } else if (req.url === '/keys') {
      fetches.jwks++;
      send({ keys: [key.jwk] });
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  issuer = `https://127.0.0.1:${port}`;
  const now = () => Math.floor(Date.now() / 1000);
  const defaults = (): JWTPayload => ({ iss: issuer, aud: opts.clientId, sub: 'alice', iat: now(), exp: now() + 300 });
  const signWith = (k: SigningKey, claims: JWTPayload, kid = k.kid) =>
    new SignJWT({ ...defaults(), ...claims }).setProtectedHeader({ alg: 'RS256', kid }).sign(k.privateKey);
  return {
    issuer,
    port,
    fetches,
    async rotate() {
      key = await newKey();
    },
    sign: (claims = {}, o = {}) => signWith(key, claims, o.kid),
    async signForeign(claims = {}) {
      return signWith(await newKey(), claims);
    },
    unsigned(claims = {}) {
      const enc = (v: unknown) => base64url.encode(JSON.stringify(v));
      return `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ ...defaults(), ...claims })}.`;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
