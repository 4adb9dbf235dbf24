#!/usr/bin/env node
// The `portcullis` command: one entry point, one module per subcommand (loaded on demand so that
// `can-i` does not pay for the server's imports).

const commands: Record<string, { load: () => Promise<{ run(argv: string[]): Promise<number> }>; help: string }> = {
  serve: { load: () => import('./cli/serve.ts'), help: 'run the API server (default)' },
  'can-i': { load: () => import('./cli/can-i.ts'), help: 'evaluate one request against policy files or a bundle, offline' },
  test: { load: () => import('./cli/test-cases.ts'), help: 'run a file of policy test cases' },
  bundle: { load: () => import('./cli/bundle.ts'), help: 'build or evaluate an OPA bundle' },
  'who-can': { load: () => import('./cli/who-can.ts'), help: 'list every subject that may do something, offline (RBAC)' },
  rbac: { load: () => import('./cli/rbac.ts'), help: 'rbac list: everything a subject may do, offline' },
  certs: { load: () => import('./cli/certs.ts'), help: 'make a development PKI (certs init)' },
  proxy: { load: () => import('./cli/proxy.ts'), help: 'authenticating, authorizing reverse proxy in front of other services' },
};

function usage(): string {
  const lines = ['Usage: portcullis <command> [flags]', '', 'Commands:'];
  for (const [name, c] of Object.entries(commands)) lines.push(`  ${name.padEnd(10)} ${c.help}`);
  lines.push('', 'Run `portcullis <command> --help` for the flags of a command.');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (first === undefined || first.startsWith('-')) return (await commands.serve.load()).run(argv);
  const cmd = commands[first];
  if (!cmd) {
    process.stderr.write(`unknown command ${JSON.stringify(first)}\n\n${usage()}\n`);
    return 2;
  }
  return (await cmd.load()).run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`portcullis: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
  },
);
