// String formats of custom resource schemas (src/registry/dynamic/formats.ts) against what the
// reference's format registry (go-openapi strfmt, govalidator, Go's net, net/url, net/mail, time)
// answers for the same strings, and held to linear time on hostile ones.
import test from 'ava';
import type { ApiObject } from '../../src/api/object.ts';
import { formatCheck } from '../../src/registry/dynamic/formats.ts';
import { compileCustomSchema, schemaErrors } from '../../src/registry/dynamic/schema.ts';

/** Per format: strings the reference takes, then strings it refuses. */
const vectors: Record<string, [string[], string[]]> = {
  'date-time': [
    ['2020-01-01T10:00:00Z', '2020-01-01t10:00:00z', '2020-01-01T10:00:00.123+02:00', '2020-02-29T23:59:59Z', '2020-01-01T10:00:00Zt' /* strfmt splits at every t */],
    ['yesterday', '2020-01-01', '2020-13-01T00:00:00Z', '2021-02-29T00:00:00Z', '2020-01-01T24:00:00Z', '2020-01-01T10:00:60Z', '2020-01-01 10:00:00Z', '2020-01-01T10:00:00'],
  ],
  date: [['2020-02-29', '0000-01-01'], ['2021-02-29', '2020-1-01', '2020-01-01T00:00:00Z']],
  duration: [
    ['1h', '1h30m', '-1.5h', '300ms', '0', '1µs', '1μs', '.5s', '5.s', '+3m', '1 day', '3 hours', '2w', '1h ' /* the long form's trailing space */, '1 hour 2 blah' /* one known unit is enough */],
    ['', '1', 'h', '1x', '.s', '1 blah', '9999999999999999999h', 'ms', '-', '1h-'],
  ],
  ipv4: [['1.2.3.4', '::ffff:1.2.3.4'], ['01.2.3.4', '1.2.3', '256.1.1.1', 'fe80::1']],
  ipv6: [['::1', 'fe80::1', '::ffff:1.2.3.4'], ['fe80::1%eth0', '1.2.3.4', ':::']],
  cidr: [['10.0.0.0/8', '::/0', '10.0.0.0/032', '1.2.3.4/32'], ['10.0.0.0/33', '10.0.0.0', '10.0.0.0/', 'fe80::/129', 'fe80::1%2/64', '10.0.0.0/+8']],
  mac: [
    ['00:00:5e:00:53:01', '00-00-5e-00-53-01', '0000.5e00.5301', '02:00:5e:10:00:00:00:01', '0000.0000.fe80.0000.0000.0000.0200.5e10.0000.0001'],
    ['00:00:5e:00:53', '00:00-5e:00:53:01', '0000.5e00', '00:00:5e:00:53:01:02'],
  ],
  uuid: [['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'], ['xyz', '123e4567-e89b-12d3-a456-42661417400']],
  uuid4: [['123e4567-e89b-42d3-a456-426614174000'], ['123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-42d3-c456-426614174000']],
  hostname: [
    ['example.com', 'a', 'a-b.c-d.e1', 'xn--bcher-kva.example', 'bücher.example'],
    ['-a.com', 'a..b', 'a_b.com', `${'a'.repeat(64)}.com`, `${'a.'.repeat(128)}com`, '', 'a.-b', '1.2.3.4' /* a one-character last label */],
  ],
  email: [
    // comments (nested, escaped) are skipped where net/mail skips them: after the address, between words, before `<`
    ['a@b.c', 'John Doe <john@example.com>', '"a b"@c.d', '<a@b>', 'a.b+c@d-e.f', 'x@[127.0.0.1]', 'a@b.c (ops)', 'John (the) Doe <a@b>', 'John Doe (x) <a@b>', '<a@b> (c (nested) \\) x)', '"a(b)"@c.d'],
    ['plain', 'a@', '@b', 'a@b@c', 'a b@c', 'a..b@c', '.a@b', 'a(c)@b', '(c)a@b', 'a@b (open', 'a@b.c (x\\)', '<a@b (c)>', 'a@(c)b'],
  ],
  uri: [
    ['http://example.com/a?b=c', '/path', 'mailto:x@y', 'https://user:pw@host:8443/x', '*', '/a b', 'http://[::1]:80/', 'urn:isbn:123'],
    ['relative/path', '', 'http://exa mple.com/', 'http://host:port/', '/a%zz', ':foo', 'http://a\nb/', 'http://us er@h/'],
  ],
  byte: [['aGVsbG8=', 'YWJj', 'YQ=='], ['', 'abc', 'a===', 'aGVsbG8', 'YQ=a']],
  isbn10: [['0-306-40615-2', '080442957X'], ['0306406153']],
  isbn13: [['978-0-306-40615-7'], ['9780306406158']],
  isbn: [['0-306-40615-2', '978-0-306-40615-7'], ['123']],
  creditcard: [['4111 1111 1111 1111', '5500-0000-0000-0004'], ['4111111111111112', '1234']],
  ssn: [['123-45-6789', '123 45 6789'], ['123456789', '123-45-678']],
  hexcolor: [['#fff', 'ffffff', '#A0b1C2'], ['#ffff', 'fff0', '']],
  rgbcolor: [['rgb(0, 255, 10)', 'rgb( 1 ,2,3 )'], ['rgb(256,0,0)', 'rgb(1,2)', 'rgba(1,2,3,4)']],
  bsonobjectid: [['507f1f77bcf86cd799439011'], ['507f1f77bcf86cd79943901', 'zz7f1f77bcf86cd799439011']],
  password: [['', 'anything at all'], []],
};

test('each format takes what the reference takes and refuses what it refuses', (t) => {
  for (const [name, [ok, no]] of Object.entries(vectors)) {
    const check = formatCheck(name);
    if (!check) {
      t.fail(`${name} unknown`);
      continue;
    }
    for (const s of ok) t.true(check(s), `${name} takes ${JSON.stringify(s)}`);
    for (const s of no) t.false(check(s), `${name} refuses ${JSON.stringify(s)}`);
  }
});

test('names as the registry normalises them; formats it does not know check nothing', (t) => {
  t.is(formatCheck('datetime'), formatCheck('date-time'));
  t.is(formatCheck('uuid-4'), formatCheck('uuid4'));
  for (const unknown of ['int32', 'int64', 'float', 'double', 'k8s-short-name', 'DATE', 'constructor', '__proto__', 'toString']) t.is(formatCheck(unknown), undefined, unknown);
});

test('hostile strings: 3 MiB of near-misses are answered in linear time by every format', (t) => {
  const inputs = ['a'.repeat(3 << 20), `${'1'.repeat(3 << 20)}h`, 'a '.repeat(1 << 20), 'a.'.repeat(1 << 20), `/${'%41'.repeat(1 << 20)}`, `${'aGVs'.repeat(1 << 19)}=`, `${'0-'.repeat(1 << 20)}x`];
  for (const name of Object.keys(vectors)) {
    const check = formatCheck(name)!;
    const started = performance.now();
    for (const s of inputs) t.notThrows(() => check(s), name);
    const ms = performance.now() - started;
    // linear work on 21 MiB in all; a backtracking pattern would not finish (or would overflow its stack)
    t.true(ms < 5_000, `${name}: ${ms.toFixed(0)} ms`);
  }
});

const obj = (spec: object): ApiObject => ({ apiVersion: 'x.example.com/v1', kind: 'X', metadata: { name: 'x' }, spec }) as unknown as ApiObject;

test('a schema\'s format holds its strings with the reference\'s message; other types and unknown formats pass', (t) => {
  const spec = {
    when: { type: 'string', format: 'date-time' },
    hosts: { type: 'array', items: { type: 'string', format: 'hostname' } },
    port: { type: 'integer', format: 'int32' },
    loose: { 'x-kubernetes-int-or-string': true, format: 'ipv4' },
    short: { type: 'string', format: 'k8s-short-name' },
  };
  const s = compileCustomSchema({ type: 'object', properties: { spec: { type: 'object', properties: spec } } });
  const errs = s.validate(obj({ when: 'yesterday', hosts: ['ok.example', '-bad'], port: 5_000_000_000, loose: 7, short: '!!' }));
  t.deepEqual(errs.map((e) => [e.field, e.detail]), [
    ['spec.when', 'spec.when in body must be of type date-time: "yesterday"'],
    ['spec.hosts[1]', 'spec.hosts[1] in body must be of type hostname: "-bad"'],
  ]);
  t.deepEqual(s.validate(obj({ when: '2020-01-01T00:00:00Z', hosts: ['a.example'], loose: '1.2.3.4' })), []);
  t.deepEqual(s.validate(obj({ loose: 'not-an-ip' })).map((e) => e.field), ['spec.loose'], 'an int-or-string\'s string is held to its format');
  t.is(schemaErrors({ type: 'object', properties: { a: { type: 'string', format: 7 } } }, 'p').length, 1, 'a format that is no string is a schema error');
  const long = s.validate(obj({ when: 'x'.repeat(100_000) }));
  t.true((long[0]?.detail?.length ?? 0) < 400, 'the message quotes at most 256 characters of the value');
});
