// The two sets of defaults, declared once each. The library profile is what `createServer` fills in
// for anything a caller leaves out (tests rely on it: memory store, RBAC, no listener). The serve
// profile is what `portcullis serve` runs with: the embedded durable store, RBAC, and HTTPS on 6443
// with a development PKI when no listener flag is given.
import { initDevPki } from '../certs/pki.ts';
import { buildServerOptions, defaultServerOptions, type ServerOptions } from './options.ts';

export const libraryProfile: () => ServerOptions = defaultServerOptions;

/** The port the embedded HTTPS listener takes when neither --secure-port nor --insecure-port is given. */
export const EMBEDDED_SECURE_PORT = 6443;

/** The serve profile's fixed values, before the flags and the embedded PKI; `serve --help` shows these. */
export function serveDefaults(flags: Partial<ServerOptions> = {}): ServerOptions {
  return {
    ...libraryProfile(),
    storageBackend: flags.etcdServers?.length ? 'etcd3' : 'lmdb',
    authorizationMode: ['RBAC'],
  };
}

export interface ServeProfile {
  options: ServerOptions;
  /** The admin kubeconfig of the development PKI, when serve made or reused one. */
  kubeconfig?: string;
}

/** The serve command's options from its flags: the flags over the serve profile, checked by every concern. */
export function serveProfile(flags: Partial<ServerOptions>): ServeProfile {
  const filled = { ...flags };
  const kubeconfig = embeddedHttps(filled);
  return { options: buildServerOptions(filled, serveDefaults(flags)), kubeconfig };
}

/**
 * With no listener flags, serve listens for HTTPS on 6443 with a development PKI in --cert-dir (made on
 * first start), verifying client certificates against its CA. Fills `flags` only where the user left
 * a value out; returns the admin kubeconfig to print.
 */
function embeddedHttps(flags: Partial<ServerOptions>): string | undefined {
  if (flags.insecurePort !== undefined || flags.securePort !== undefined) return undefined;
  flags.securePort = EMBEDDED_SECURE_PORT;
  if (flags.tlsCertFile || flags.clientCaFile) return undefined;
  const pki = initDevPki(flags.certDir ?? libraryProfile().certDir, { port: EMBEDDED_SECURE_PORT });
  flags.tlsCertFile = pki.servingCert;
  flags.tlsPrivateKeyFile = pki.servingKey;
  flags.clientCaFile = pki.caCert;
  flags.requestheaderClientCaFile ??= pki.frontProxyCaCert;
  flags.requestheaderAllowedNames ??= ['front-proxy-client'];
  if (!flags.serviceAccountKeyFile?.length) flags.serviceAccountKeyFile = [pki.serviceAccountKey];
  return pki.adminKubeconfig;
}
