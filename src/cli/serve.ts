import { createServer } from '../server/server.ts';
import { FlagError, wantsHelp } from '../config/flag-table.ts';
import { parseServeFlags, serveHelp } from '../config/flags.ts';
import { EMBEDDED_SECURE_PORT, serveDefaults, serveProfile } from '../config/profiles.ts';

const NOTES = [
  `With neither --secure-port nor --insecure-port, serve listens for HTTPS on ${EMBEDDED_SECURE_PORT} with a development`,
  'PKI in --cert-dir (made on first start), verifies client certificates against its CA, and prints how to',
  'connect. --storage-backend is etcd3 when --etcd-servers is given.',
];

export async function run(argv: string[]): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(`${serveHelp(serveDefaults(), NOTES)}\n`);
    return 0;
  }
  let profile;
  try {
    profile = serveProfile(parseServeFlags(argv));
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
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
  return 0;
}
