// --basic-auth-file: CSV password,user,uid[,"group1,group2"], keyed by user name (last row wins).
// Passwords are held as SHA-256 digests and compared in constant time; an unknown user costs the
// same comparison, so timing does not reveal which names exist.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AuthnError, type Authenticator, type AuthnRequest, type UserInfo } from './types.ts';
import { parseCredentialFile } from './csv.ts';

export const BASIC_REALM = 'platform-master';
export const BASIC_CHALLENGE = `Basic realm="${BASIC_REALM}"`;
export const INVALID_BASIC = 'invalid username/password combination';

interface PasswordEntry {
  passwordDigest: Buffer;
  user: UserInfo;
}

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

const DUMMY_DIGEST = digest('\u0000no such user\u0000');

export function parsePasswordFile(text: string, path: string): Map<string, PasswordEntry> {
  const entries = new Map<string, PasswordEntry>();
  for (const { secret, user } of parseCredentialFile(text, path, 'password')) {
    entries.set(user.name, { passwordDigest: digest(secret), user });
  }
  return entries;
}

/** User and password of an `Authorization: Basic <base64(user:password)>` header, or null. */
export function basicCredentialsOf(header: string | undefined): { username: string; password: string } | null {
  if (header === undefined) return null;
  if (header.length < 6 || header.slice(0, 6).toLowerCase() !== 'basic ') return null;
  const b64 = header.slice(6).trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  const decoded = Buffer.from(b64, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function basicAuthenticator(entries: Map<string, PasswordEntry>): Authenticator {
  return {
    name: 'basic-auth',
    authenticate(req: AuthnRequest): UserInfo | null {
      const creds = basicCredentialsOf(req.headers.authorization);
      if (creds === null) return null;
      const entry = entries.get(creds.username);
      const matches = timingSafeEqual(digest(creds.password), entry ? entry.passwordDigest : DUMMY_DIGEST);
      if (!entry || !matches) throw new AuthnError(INVALID_BASIC);
      return { ...entry.user, groups: [...entry.user.groups] };
    },
  };
}

export function basicAuthenticatorFromFile(path: string): Authenticator {
  return basicAuthenticator(parsePasswordFile(readFileSync(path, 'utf8'), path));
}
