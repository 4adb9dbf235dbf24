// --token-auth-file: CSV token,user,uid[,"group1,group2"][,ignored...]. Tokens are held only as
// SHA-256 digests and looked up by digest, so no comparison ever runs over the secret itself.
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { UserInfo } from './types.ts';
import { parseCredentialFile } from './csv.ts';
import type { TokenAuthenticator } from './token.ts';
import { AuthnConfigError } from './config-error.ts';

function digest(secret: string): string {
  // one-shot: no Hash object per request
  return hash('sha256', secret, 'base64');
}

/** Parse the file's text; `path` names it in errors. Duplicate tokens: the last row wins. */
export function parseTokenFile(text: string, path: string): Map<string, UserInfo> {
  const users = new Map<string, UserInfo>();
  for (const { line, secret, user } of parseCredentialFile(text, path, 'token')) {
    if (secret === '') throw new AuthnConfigError(`token file '${path}' has an empty token (line ${line})`);
    users.set(digest(secret), user);
  }
  return users;
}

export function tokenFileAuthenticator(users: Map<string, UserInfo>): TokenAuthenticator {
  return {
    name: 'token-file',
    authenticateToken(token: string): UserInfo | null {
      const user = users.get(digest(token));
      return user ? { ...user, groups: [...user.groups] } : null;
    },
  };
}

export function tokenFileAuthenticatorFromFile(path: string): TokenAuthenticator {
  return tokenFileAuthenticator(parseTokenFile(readFileSync(path, 'utf8'), path));
}
