// `portcullis certs init [--dir certs] [--hosts a,b] [--port 6443 | --server URL] [--embed paths|data]`
import { relative } from 'node:path';
import { parseCommand } from './command.ts';
import { helpFlag } from './common-flags.ts';

const spec = {
  usage: ['portcullis certs init [--dir certs] [--hosts name,ip,...] [--port 6443] [--server https://host:port] [--embed paths|data]'],
  about: `Creates a development PKI: a CA, a serving certificate, an admin client certificate (CN admin,
O system:masters), a front-proxy CA and client certificate, a service-account key pair and
admin.kubeconfig. Existing files are kept.`,
  flags: [
    { name: 'dir', key: 'dir', type: 'string', value: 'DIR', help: 'Where the files are written.' },
    { name: 'hosts', key: 'hosts', type: 'list', value: 'NAME|IP', help: 'Extra names of the serving certificate.' },
    { name: 'port', key: 'port', type: 'int', max: 65_535, help: 'Port of the server in admin.kubeconfig.' },
    { name: 'server', key: 'server', type: 'string', value: 'URL', help: 'Server URL in admin.kubeconfig (instead of --port).' },
    { name: 'embed', key: 'embed', type: 'string', choices: ['paths', 'data'], help: 'admin.kubeconfig names the files, or embeds their data.' },
    helpFlag,
  ],
  defaults: { dir: 'certs', embed: 'paths' },
  positionals: [1, 1],
} as const;

export async function run(argv: string[]): Promise<number> {
  const line = parseCommand(spec, argv[0] === 'certs' ? argv.slice(1) : argv);
  if (typeof line === 'number') return line;
  const { values, positionals } = line;
  if (positionals[0] !== 'init') {
    process.stderr.write(`unknown subcommand ${positionals[0]}\nusage: ${spec.usage[0]}\n`);
    return 2;
  }
  const { port, embed } = values;
  if (port === 0) {
    process.stderr.write(`invalid --port 0\n`);
    return 2;
  }
  const hosts = values.hosts ?? [];
  try {
    // loaded after parsing: --help and usage errors do not pay for the PKI code
    const { initDevPki } = await import('../certs/pki.ts');
    const files = initDevPki(values.dir, { hosts, port, server: values.server, embed });
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
