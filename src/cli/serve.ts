import { createServer } from '../server/server.ts';
import { FlagError, wantsHelp } from '../config/flag-table.ts';
import { parseServeArgs, serveHelp } from '../config/flags.ts';
import { EMBEDDED_SECURE_PORT, serveDefaults, serveProfile } from '../config/profiles.ts';

const NOTES = [
  `With neither --secure-port nor --insecure-port, serve listens for HTTPS on ${EMBEDDED_SECURE_PORT} with a development`,
  'PKI in --cert-dir (made on first start), verifies client certificates against its CA, and prints how to',
  'connect. --storage-backend is etcd3 when --etcd-servers is given.',
  '--config=FILE reads any of these flags from a YAML map (`secure-port: 6443`, lists as YAML lists);',
  'flags on the command line win over the file. SIGTERM/SIGINT: stop accepting, end watches, let requests',
  'in flight finish (--shutdown-timeout), close the store, exit 0; a second signal exits at once.',
];

export async function run(argv: string[]): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(`${serveHelp(serveDefaults(), NOTES)}\n`);
    return 0;
  }
  let profile;
  try {
    profile = serveProfile(parseServeArgs(argv));
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const server = await createServer(profile.options);
  if (server.insecureUrl) process.stderr.write(`portcullis: serving plain HTTP on ${server.insecureUrl}\n`);
  if (server.secureUrl) process.stderr.write(`portcullis: serving HTTPS on ${server.secureUrl}\n`);
  if (profile.kubeconfig) process.stderr.write(`portcullis: connect with: kubectl --kubeconfig ${profile.kubeconfig} get namespaces\n`);
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  // a second signal while draining: the operator means now
  const now = (s: string) => () => {
    process.stderr.write(`portcullis: ${s} again, exiting now\n`);
    process.exit(1);
  };
  process.once('SIGINT', now('SIGINT'));
  process.once('SIGTERM', now('SIGTERM'));
  process.stderr.write(`portcullis: ${signal}: shutting down (in-flight requests get ${profile.options.shutdownTimeoutSeconds}s)\n`);
  await server.close({ drainTimeoutMs: profile.options.shutdownTimeoutSeconds * 1000 });
  process.stderr.write('portcullis: stopped\n');
  return 0;
}
