// The service-account key material as its own piece: built once by the assembly and handed both to
// the authenticator (verifying keys) and to the tokens controller (signing), so neither hands token
// sources to the other.
import { createPublicKey, type KeyObject } from 'node:crypto';
import {
  generateServiceAccountKey,
  readServiceAccountKeys,
  signBoundServiceAccountToken,
  signServiceAccountToken,
  verifyWithAny,
} from './service-account.ts';

export interface ServiceAccountKeyOptions {
  /** --service-account-key-file */
  keyFiles: readonly string[];
  /** Several servers share the storage (etcd): they must sign with one key given to all of them. */
  sharedStorage: boolean;
}

export interface ServiceAccountKeyMaterial {
  /** Signs new tokens; a promise while a generated key is being made. */
  readonly signing: Promise<KeyObject>;
  /** Every key that verifies (the public half of a generated key included). */
  readonly verifying: Promise<KeyObject[]>;
}

import type { TokenIssuer } from './types.ts';
export type { TokenIssuer } from './types.ts';

/**
 * Keys from --service-account-key-file; without a private key among them, a generated in-memory RSA
 * key signs (its tokens die with the process). Generation runs off the event loop and is awaited
 * only by what needs it.
 */
export function serviceAccountKeyMaterial(opts: ServiceAccountKeyOptions, log: (msg: string) => void): ServiceAccountKeyMaterial {
  const keys = readServiceAccountKeys(opts.keyFiles);
  if (keys.signing) return { signing: Promise.resolve(keys.signing), verifying: Promise.resolve(keys.verifying) };
  if (opts.sharedStorage) {
    // servers sharing etcd must sign with one key, or each would keep re-issuing the others' tokens
    throw new Error('--storage-backend=etcd3 needs --service-account-key-file with a private key shared by every server on the cluster');
  }
  log(
    opts.keyFiles.length > 0
      ? 'portcullis: --service-account-key-file holds no private key; service account tokens are signed with a generated in-memory key and stop working when the server stops'
      : 'portcullis: no --service-account-key-file; service account tokens are signed with a generated in-memory key and stop working when the server stops',
  );
  const signing = generateServiceAccountKey();
  const verifying = signing.then((k) => [...keys.verifying, createPublicKey(k)]);
  // whoever awaits these sees a failure; nobody awaiting must not make it an unhandled rejection
  signing.catch((e: unknown) => log(`portcullis: generating the service account key failed: ${e instanceof Error ? e.message : String(e)}`));
  verifying.catch(() => {});
  return { signing, verifying };
}

export function tokenIssuer(keys: ServiceAccountKeyMaterial): TokenIssuer {
  return {
    async sign(subject) {
      return signServiceAccountToken(await keys.signing, subject);
    },
    async signBound(claims) {
      return signBoundServiceAccountToken(await keys.signing, claims);
    },
    async verifies(token) {
      const verifying = await keys.verifying;
      return verifyWithAny(token, verifying).then(
        () => true,
        () => false,
      );
    },
  };
}
