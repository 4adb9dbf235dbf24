import test from 'ava';
import { FlagError, parseFlags } from '../../src/config/flag-table.ts';
import { parseServeFlags, serveFlags, serveHelp } from '../../src/config/flags.ts';
import { buildServerOptions, defaultServerOptions } from '../../src/config/options.ts';
import { serveDefaults } from '../../src/config/profiles.ts';
import { policySourceFlags } from '../../src/cli/common-flags.ts';
import { policySources } from '../../src/authz/offline.ts';

const table = [
  { name: 'port', key: 'port', type: 'int', max: 65535, help: '' },
  { name: 'name', key: 'name', type: 'string', short: 'n', help: '' },
  { name: 'on', key: 'on', type: 'bool', short: 'A', help: '' },
  { name: 'verbose', key: 'verbose', type: 'bool', short: 'v', help: '' },
  { name: 'mode', key: 'mode', type: 'list', choices: ['a', 'b', 'c'], help: '' },
  { name: 'group', key: 'group', type: 'repeated', help: '' },
] as const;

test('every form of a flag: =value, separate value, short, grouped shorts, bool =true|false, lists, repeats, --', (t) => {
  const r = parseFlags(table, ['--port=1', 'x', '--name', 'n1', '-Av', '--on=false', '--mode=a,b', '--mode', 'c', '--group', 'g,1', '--group=g2', '--', '--port'], true);
  t.deepEqual(r.values, { port: 1, name: 'n1', on: false, verbose: true, mode: ['a', 'b', 'c'], group: ['g,1', 'g2'] });
  t.deepEqual(r.positionals, ['x', '--port']);
  t.deepEqual(parseFlags(table, ['-nfoo']).values, { name: 'foo' });
});

test('bad command lines are FlagErrors naming the flag', (t) => {
  const bad = (argv: string[], re: RegExp) => t.regex(t.throws(() => parseFlags(table, argv), { instanceOf: FlagError })!.message, re);
  bad(['--nope'], /unknown flag --nope/);
  bad(['-x'], /unknown flag -x/);
  bad(['--port=x'], /--port: "x" is not a non-negative integer/);
  bad(['--port=70000'], /--port: 70000 is more than 65535/);
  bad(['--name'], /--name needs a value/);
  bad(['--on=yes'], /--on: expected true or false/);
  bad(['--mode=d'], /--mode: "d" is not one of a, b, c/);
  bad(['positional'], /unexpected argument "positional"/);
});

test('serve: the concern tables hold every flag once, and --help lists each', (t) => {
  const names = serveFlags.map((f) => f.name);
  t.is(new Set(names).size, names.length);
  const help = serveHelp(serveDefaults());
  for (const n of names) t.true(help.includes(`--${n}`), n);
  t.deepEqual(parseServeFlags(['--secure-port', '0', '--authorization-mode=ABAC,RBAC', '--anonymous-auth=false']), { securePort: 0, authorizationMode: ['ABAC', 'RBAC'], anonymousAuth: false });
});

test('profiles: the library defaults and the serve defaults; builders check each concern', (t) => {
  t.is(defaultServerOptions().storageBackend, 'memory');
  t.is(serveDefaults().storageBackend, 'lmdb');
  t.is(serveDefaults({ etcdServers: ['http://e:2379'] }).storageBackend, 'etcd3');
  t.deepEqual(serveDefaults().authorizationMode, ['RBAC']);
  t.throws(() => buildServerOptions({ authorizationMode: ['ABAC'] }), { message: /ABAC requires --authorization-policy-file/ });
  t.throws(() => buildServerOptions({ storageBackend: 'etcd3' }), { message: /needs --etcd-servers/ });
  t.throws(() => buildServerOptions({ requestheaderGroupHeaders: ['X Bad'] }), { message: /--requestheader-group-headers/ });
  t.is(buildServerOptions({ watchCacheSize: 5 }).watchCacheSize, 5);
});

test('--service-account-max-token-expiration: 0 (no cap) or a duration from 1 hour to 2^32 seconds', (t) => {
  const flag = (v: string) => buildServerOptions({ serviceAccountMaxTokenExpiration: v });
  t.is(flag('0').serviceAccountMaxTokenExpiration, '0');
  t.is(flag('24h').serviceAccountMaxTokenExpiration, '24h');
  t.notThrows(() => flag('1h'));
  t.throws(() => flag('59m'), { message: /--service-account-max-token-expiration must be between 1 hour and 2\^32 seconds/ });
  t.throws(() => flag('1193047h'), { message: /must be between 1 hour and 2\^32 seconds/ });
  t.throws(() => flag('soon'), { message: /--service-account-max-token-expiration: "soon" is not a duration/ });
});

test('the offline commands declare the same policy sources as authz/offline.ts, in its order', (t) => {
  t.deepEqual(policySourceFlags.map((f) => f.name), policySources().map((s) => s.flag));
});
