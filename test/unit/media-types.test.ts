import test from 'ava';
import type { Codec } from '../../src/codec/codec.ts';
import { jsonCodec } from '../../src/codec/codecs.ts';
import { jsonWatchFraming } from '../../src/codec/json.ts';
import { MediaTypeRegistry, mediaTypes, type MediaTypeEntry } from '../../src/codec/media-types.ts';
import { negotiate, parseAccept } from '../../src/codec/media.ts';

const offers = (role: Parameters<typeof mediaTypes.role>[0]) => [...mediaTypes.role(role).offers];

test('each role offers its media types in the server preference order', (t) => {
  t.deepEqual(offers('response'), ['application/json', 'application/yaml', 'application/vnd.platform.protobuf']);
  t.deepEqual(offers('request'), ['application/json', 'application/yaml', 'application/vnd.platform.protobuf']);
  t.deepEqual(offers('watch'), ['application/json', 'application/vnd.platform.protobuf']);
  t.deepEqual(offers('openapi'), ['application/json', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf']);
  t.deepEqual(offers('patch'), ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
});

test('negotiation: the client ranking first, then ours; wildcards pick our first', (t) => {
  const responses = mediaTypes.role('response');
  const pick = (accept: string | undefined) => responses.negotiate(accept)?.mediaType;
  t.is(pick(undefined), 'application/json');
  t.is(pick('*/*'), 'application/json');
  t.is(pick('application/*'), 'application/json');
  t.is(pick('application/yaml'), 'application/yaml');
  t.is(pick('application/json;q=0.5, application/yaml'), 'application/yaml');
  t.is(pick('text/html, application/yaml;q=0.9, */*;q=0.1'), 'application/yaml');
  t.is(pick('application/json;as=Table;g=meta.k8s.io;v=v1, application/yaml'), 'application/yaml', 'conversions we do not do never match');
  t.is(pick('text/html'), undefined);
  t.is(pick('application/json;q=0'), undefined);
});

test('a negotiated response carries its Content-Type and the Accept parameters', (t) => {
  const yaml = mediaTypes.role('response').negotiate('application/yaml;pretty=1')!;
  t.is(yaml.entry.codec.mediaType, 'application/yaml');
  t.is(yaml.contentType, 'application/yaml; charset=utf-8');
  t.deepEqual(yaml.params, { pretty: '1' });
  const watch = mediaTypes.role('watch').negotiate('application/json;stream=watch')!;
  t.is(watch.mediaType, 'application/json');
  t.is(watch.params.stream, 'watch');
});

test('YAML aliases name request bodies, but are not offered in responses', (t) => {
  const bodies = mediaTypes.role('request');
  for (const ct of ['application/yaml', 'application/x-yaml', 'text/yaml', 'Text/YAML; charset=utf-8']) t.is(bodies.lookup(ct)?.mediaType, 'application/yaml', ct);
  t.is(bodies.lookup('application/json; charset=utf-8')?.mediaType, 'application/json');
  t.is(bodies.preferred?.mediaType, 'application/json', 'a body without a Content-Type is JSON');
  t.is(bodies.lookup('application/xml'), undefined);
  t.is(mediaTypes.role('response').negotiate('text/yaml'), undefined);
  t.is(mediaTypes.role('response').negotiate('application/x-yaml'), undefined);
});

test('patch types are found only in the patch role, by name without parameters', (t) => {
  const patches = mediaTypes.role('patch');
  t.is(patches.lookup('application/merge-patch+json; charset=utf-8')?.patch.type, 'merge');
  t.is(patches.lookup('application/json'), undefined);
  t.is(mediaTypes.role('request').lookup('application/json-patch+json'), undefined);
});

// How protobuf will join: one entry with its codec and framing, and an alias clients may ask for.
const fakeProtobuf: Codec = { mediaType: 'application/vnd.example.protobuf', encode: () => Buffer.alloc(0), decode: () => ({}) };
const withProtobuf = () =>
  new MediaTypeRegistry([
    // the server's own protobuf entry reads review bodies only; this one stands for a full codec
    ...mediaTypes.entries.filter((e) => e.mediaType !== 'application/vnd.platform.protobuf'),
    {
      mediaType: 'application/vnd.example.protobuf',
      aliases: [{ mediaType: 'application/vnd.kubernetes.protobuf', acceptable: true }],
      roles: ['response', 'request', 'watch'],
      charset: false,
      codec: fakeProtobuf,
      watch: jsonWatchFraming,
    },
  ]);

test('an acceptable alias can be asked for and is answered under its own name; wildcards still pick a canonical name', (t) => {
  const responses = withProtobuf().role('response');
  t.deepEqual([...responses.offers], ['application/json', 'application/yaml', 'application/vnd.example.protobuf']);
  const asked = responses.negotiate('application/vnd.kubernetes.protobuf, application/json;q=0.5')!;
  t.is(asked.entry.codec, fakeProtobuf);
  t.is(asked.contentType, 'application/vnd.kubernetes.protobuf', 'binary formats get no charset');
  t.is(responses.negotiate('application/*')?.mediaType, 'application/json');
  t.is(withProtobuf().role('watch').negotiate('application/vnd.kubernetes.protobuf;stream=watch')?.entry.mediaType, 'application/vnd.example.protobuf');
  t.is(withProtobuf().role('request').lookup('application/vnd.kubernetes.protobuf')?.codec, fakeProtobuf);
});

test('a registry refuses an entry that cannot play its roles, and a name listed twice', (t) => {
  const bare: MediaTypeEntry = { mediaType: 'application/x-thing', aliases: [], roles: ['response'], charset: false };
  t.throws(() => new MediaTypeRegistry([bare]), { message: /plays response without a codec/ });
  t.throws(() => new MediaTypeRegistry([{ ...bare, roles: ['watch'], codec: jsonCodec }]), { message: /plays watch without a watch/ });
  t.throws(() => new MediaTypeRegistry([{ ...bare, codec: jsonCodec }, { ...bare, codec: jsonCodec }]), { message: /listed twice/ });
  t.throws(() => new MediaTypeRegistry([{ ...bare, mediaType: 'Application/X-Thing', codec: jsonCodec }]), { message: /lower case/ });
});

test('a parsed Accept header is reused for the same text, frozen, and negotiates as before', (t) => {
  const h = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json;q=0.9';
  const a = parseAccept(h);
  t.is(parseAccept(h), a);
  t.true(Object.isFrozen(a) && Object.isFrozen(a[0]) && Object.isFrozen(a[0].params));
  t.deepEqual(a.map((r) => [r.type, r.subtype, r.q, r.params]), [
    ['application', 'json', 1, { as: 'Table', v: 'v1', g: 'meta.k8s.io' }],
    ['application', 'json', 0.9, {}],
  ]);
  t.deepEqual(parseAccept(undefined).map((r) => `${r.type}/${r.subtype}`), ['*/*']);
  t.deepEqual(parseAccept('  ').map((r) => `${r.type}/${r.subtype}`), ['*/*']);
  // offers are matched by type and subtype exactly, or by a wildcard
  t.is(negotiate('application/*', ['text/plain', 'application/yaml'])?.mediaType, 'application/yaml');
  t.is(negotiate('application/jso, applicatio/json', ['application/json']), undefined);
  t.is(negotiate('*/json', ['application/yaml', 'application/json'])?.mediaType, 'application/json');
  // many distinct headers: each still parsed right (the cache is bounded)
  for (let i = 0; i < 600; i++) t.is(parseAccept(`application/x-${i}`)[0].subtype, `x-${i}`);
  t.is(parseAccept(h)[0].params.as, 'Table');
});
