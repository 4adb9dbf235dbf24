import test from 'ava';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  maskTrailingDash,
  nameIsDNS1123Subdomain,
  nameIsPathSegment,
  regexError,
} from '../../src/api/validation/names.ts';

const subdomainMsg =
  "a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a DNS-1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

test('regexError joins examples the way Go does (double space before "or")', (t) => {
  t.is(regexError('m', 'f'), "m (regex used for validation is 'f')");
  t.is(regexError('m', 'f', 'a', 'b'), "m (e.g. 'a',  or 'b', regex used for validation is 'f')");
});

test('DNS-1123 label', (t) => {
  for (const ok of ['a', 'abc', 'a-b', '0', '123-abc', 'a'.repeat(63)]) t.deepEqual(isDNS1123Label(ok), [], ok);
  for (const bad of ['', 'A', '-a', 'a-', 'a.b', 'a_b', 'a b']) t.deepEqual(isDNS1123Label(bad), [labelMsg], bad);
  t.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
});

test('DNS-1123 subdomain', (t) => {
  for (const ok of ['example.com', 'a', 'a.b-c.d', '1.2.3', 'a'.repeat(253)]) t.deepEqual(isDNS1123Subdomain(ok), [], ok);
  for (const bad of ['', 'Example.com', 'a..b', '.a', 'a.', 'a_b', 'a/b']) t.deepEqual(isDNS1123Subdomain(bad), [subdomainMsg], bad);
  t.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
});

test('DNS-1035 label must start with a letter', (t) => {
  t.deepEqual(isDNS1035Label('my-svc'), []);
  const [msg] = isDNS1035Label('1svc');
  t.true(msg.startsWith("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123'"));
});

test('qualified names: prefix and name parts', (t) => {
  for (const ok of ['a', 'A', 'a.b_c-d', 'example.com/MyName', 'my.name', '123-abc', 'a/b', `${'a'.repeat(253)}/${'b'.repeat(63)}`]) {
    t.deepEqual(isQualifiedName(ok), [], ok);
  }
  t.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']);
  t.deepEqual(isQualifiedName('a/'), [
    'name part must be non-empty',
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  t.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
  t.true(isQualifiedName('Bad_Prefix/a')[0].startsWith('prefix part a DNS-1123 subdomain must consist'));
  t.true(isQualifiedName('a/b/c')[0].startsWith('a qualified name must consist of'));
  t.true(isQualifiedName('a/b/c')[0].endsWith("with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"));
  t.is(isQualifiedName('-a').length, 1);
});

test('label values', (t) => {
  for (const ok of ['', 'a', 'A_b.c-D', '12345', 'x'.repeat(63)]) t.deepEqual(isValidLabelValue(ok), [], ok);
  t.deepEqual(isValidLabelValue('-a'), [
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  ]);
  t.is(isValidLabelValue('x'.repeat(64))[0], 'must be no more than 63 characters');
  t.is(isValidLabelValue('a b').length, 1);
});

test('config keys', (t) => {
  for (const ok of ['a', 'KEY_NAME', 'key.name', 'key-name', '.dockercfg', 'tls.crt']) t.deepEqual(isConfigMapKey(ok), [], ok);
  t.true(isConfigMapKey('a/b')[0].startsWith("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name'"));
  t.deepEqual(isConfigMapKey('.'), ["must not be '.'"]);
  t.deepEqual(isConfigMapKey('..'), ["must not be '..'"]);
  t.deepEqual(isConfigMapKey('..a'), ["must not start with '..'"]);
});

test('path-segment names', (t) => {
  t.deepEqual(isValidPathSegmentName('.'), ["may not be '.'"]);
  t.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
  t.deepEqual(isValidPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
  t.deepEqual(isValidPathSegmentName('system:node Name.x'), []);
  t.deepEqual(nameIsPathSegment('..', true), [], 'a prefix may be dots');
  t.deepEqual(nameIsPathSegment('a/', true), ["may not contain '/'"]);
});

test('generateName prefixes mask a trailing dash', (t) => {
  t.is(maskTrailingDash('foo-'), 'foa');
  t.is(maskTrailingDash('-'), '-');
  t.is(maskTrailingDash('foo'), 'foo');
  t.deepEqual(nameIsDNS1123Subdomain('web-', true), []);
  t.deepEqual(nameIsDNS1123Subdomain('web-', false), [subdomainMsg]);
  t.deepEqual(nameIsDNS1123Subdomain('Web-', true), [subdomainMsg]);
});
