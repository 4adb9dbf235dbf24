// `portcullis certs init [--dir certs] [--hosts a,b] [--port 6443 | --server URL] [--embed paths|data]`
import { parseArgs } from 'node:util';
import { relative } from 'node:path';
import { initDevPki } from '../certs/pki.ts';

const USAGE = `usage: portcullis certs init [--dir certs] [--hosts name,ip,...] [--port 6443] [--server https://host:port] [--embed paths|data]

Creates a development PKI: a CA, a serving certificate, an admin client certificate (CN admin,
O system:masters), a front-proxy CA and client certificate, a service-account key pair and
admin.kubeconfig. Existing files are kept.`;

export async function run(argv: string[]): Promise<number> {
  const args = argv[0] === 'certs' ? argv.slice(1) : argv;
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        dir: { type: 'string', default: 'certs' },
        hosts: { type: 'string' },
        port: { type: 'string' },
        server: { type: 'string' },
        embed: { type: 'string', default: 'paths' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'init') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
    process.stderr.write(`invalid --port ${JSON.stringify(values.port)}\n`);
    return 2;
  }
  if (values.embed !== 'paths' && values.embed !== 'data') {
    process.stderr.write(`--embed must be "paths" or "data"\n`);
    return 2;
  }
  const hosts = values.hosts ? values.hosts.split(',').map((h) => h.trim()).filter(Boolean) : [];
  try {
    const files = initDevPki(values.dir, { hosts, port, server: values.server, embed: values.embed });
    // Paths under the working directory are shown relative to it, others in full.
    const shown = (p: string): string => {
      const rel = relative(process.cwd(), p);
      return rel && !rel.startsWith('..') ? rel : p;
    };
    if (files.created.length === 0) {
      process.stdout.write(`all certificates already present in ${shown(files.dir)}; nothing changed\n`);
    } else {
      for (const f of files.created) process.stdout.write(`wrote ${shown(f)}\n`);
    }
    process.stdout.write(`connect with: kubectl --kubeconfig ${shown(files.adminKubeconfig)} get namespaces\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`certs init failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
