import { createServer } from '../server/server.ts';
import { FlagError, parseServeFlags, serveHelp } from '../config/flags.ts';
import type { ServerOptions } from '../config/options.ts';
import { initDevPki } from '../certs/pki.ts';

/**
 * With no listener flags, `serve` runs the embedded default: HTTPS on 6443 with a development PKI in
 * ./certs (made on first start), client certificates verified against its CA, and prints how to connect.
 */
function applyEmbeddedDefaults(flags: Partial<ServerOptions>): string | undefined {
  if (flags.insecurePort !== undefined || flags.securePort !== undefined) return undefined;
  flags.securePort = 6443;
  if (flags.tlsCertFile || flags.clientCaFile) return undefined;
  const dir = flags.certDir ?? 'certs';
  const pki = initDevPki(dir, { port: 6443 });
  flags.tlsCertFile = pki.servingCert;
  flags.tlsPrivateKeyFile = pki.servingKey;
  flags.clientCaFile = pki.caCert;
  flags.requestheaderClientCaFile ??= pki.frontProxyCaCert;
  flags.requestheaderAllowedNames ??= ['front-proxy-client'];
  if (!flags.serviceAccountKeyFile?.length) flags.serviceAccountKeyFile = [pki.serviceAccountKey];
  return pki.adminKubeconfig;
}

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${serveHelp()}\n`);
    return 0;
  }
  let flags: Partial<ServerOptions>;
  try {
    flags = parseServeFlags(argv);
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const kubeconfig = applyEmbeddedDefaults(flags);
  // the command's defaults: the embedded durable store, and RBAC with the bootstrap policy
  // (createServer's own defaults, used by tests, are memory and AlwaysAllow)
  flags.storageBackend ??= flags.etcdServers?.length ? 'etcd3' : 'lmdb';
  flags.authorizationMode ??= ['RBAC'];
  const server = await createServer(flags);
  if (server.insecureUrl) process.stderr.write(`portcullis: serving plain HTTP on ${server.insecureUrl}\n`);
  if (server.secureUrl) process.stderr.write(`portcullis: serving HTTPS on ${server.secureUrl}\n`);
  if (kubeconfig) process.stderr.write(`portcullis: connect with: kubectl --kubeconfig ${kubeconfig} get namespaces\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
  return 0;
}
