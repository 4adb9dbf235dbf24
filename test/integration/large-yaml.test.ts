// A large object answered as YAML (src/codec/yaml-object-slices.ts) or protobuf (protobuf.ts,
// wideObjectSlices): written a slice at a time, so other requests are answered while it is written,
// with exactly the text or bytes the whole document has; once written it is kept and answered at
// once. (The slices themselves: test/unit/yaml-encode.test.ts, test/unit/protobuf-codec.test.ts.)
import test from 'ava';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import YAML from 'yaml';
import { load } from 'js-yaml';
import { startServer, type TestServer } from '../helpers/server.ts';
import { decodeObject, encodeObject } from '../../src/codec/protobuf.ts';

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

const KEYS = 60_000;

/** The YAML of what `path` serves as JSON, written in one piece here, and how long that took: the hold it would be. */
async function wholeYaml(path: string): Promise<{ whole: string; wholeMs: number }> {
  const asJson = await srv.req('GET', path);
  const started = performance.now();
  const whole = YAML.stringify(asJson.json, { aliasDuplicateObjects: false });
  return { whole, wholeMs: performance.now() - started };
}

/** `work`'s result and the event loop's longest hold while it ran (the server runs in this process), in ms. */
async function withLongestHold<T>(work: () => Promise<T>): Promise<{ result: T; heldMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const result = await work();
  delay.disable();
  return { result, heldMs: delay.max / 1e6 };
}

test.serial('a ConfigMap of 60,000 keys as YAML: other requests are answered between its slices, and the text is the whole document\'s', async (t) => {
  const data = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`key-${i}`, `value-${i}`]));
  const created = await srv.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'wide' }, data });
  t.is(created.status, 201);
  const url = `${srv.url}/api/v1/namespaces/default/configmaps/wide`;

  // what writing the whole document in one piece holds the event loop for, on this machine now
  const { whole, wholeMs } = await wholeYaml('/api/v1/namespaces/default/configmaps/wide');
  const { result: text, heldMs } = await withLongestHold(async () => {
    const big = await fetch(url, { headers: { accept: 'application/yaml' } });
    t.is(big.status, 200);
    t.is(big.headers.get('content-type'), 'application/yaml; charset=utf-8');
    t.is(big.headers.get('content-length'), null, 'sliced: no length up front');
    let bigDone = false;
    const bigText = big.text().then((body) => {
      bigDone = true;
      return body;
    });
    // asked once the big answer has begun: served between its slices
    const other = await fetch(`${srv.url}/version`);
    t.is(other.status, 200);
    await other.text();
    t.false(bigDone, 'a small request was answered while the large YAML answer was still being written');
    return bigText;
  });
  t.log(`the whole document in one piece: ${wholeMs.toFixed(0)} ms; longest hold while sliced: ${heldMs.toFixed(0)} ms`);
  // a ratio measured in the same run, not a time: in one piece the hold is the whole document's time
  t.true(heldMs < wholeMs / 3, `held the loop ${heldMs.toFixed(0)} ms of ${wholeMs.toFixed(0)}`);
  const parsed = load(text) as { data: Record<string, string>; metadata: { name: string } };
  t.is(parsed.metadata.name, 'wide');
  t.is(Object.keys(parsed.data).length, KEYS);
  t.is(parsed.data['key-59999'], 'value-59999');
  t.is(text, whole, 'the same text as the document written whole');

  // written once: the next answer is the kept text, in one piece
  const again = await fetch(url, { headers: { accept: 'application/yaml' } });
  t.is(await again.text(), text);
  t.is(again.headers.get('content-length'), String(Buffer.byteLength(text)));
});

test.serial('a ConfigMap of 60,000 keys as protobuf: encoded a slice at a time (the loop is held for less than the whole encoding), the bytes are the whole encoding\'s', async (t) => {
  const data = Object.fromEntries(Array.from({ length: KEYS }, (_, i) => [`key-${i}`, `value-${i}`]));
  t.is((await srv.req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'wide-pb' }, data })).status, 201);
  const url = `${srv.url}/api/v1/namespaces/default/configmaps/wide-pb`;
  const asJson = (await srv.req('GET', '/api/v1/namespaces/default/configmaps/wide-pb')).json;
  // what encoding it in one piece holds the loop for, on this machine now
  const started = performance.now();
  const whole = encodeObject(asJson);
  const wholeMs = performance.now() - started;
  const { result: bytes, heldMs } = await withLongestHold(async () => {
    const big = await fetch(url, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    t.is(big.status, 200);
    // the envelope's length comes first, so the bytes follow the last slice: no length up front
    t.is(big.headers.get('content-length'), null, 'sliced');
    return Buffer.from(await big.arrayBuffer());
  });
  t.log(`the whole encoding in one piece: ${wholeMs.toFixed(0)} ms; longest hold while sliced: ${heldMs.toFixed(0)} ms`);
  // a ratio of the same run: in one piece the hold is at least the whole encoding's time
  t.true(heldMs < wholeMs, `held the loop ${heldMs.toFixed(0)} ms against ${wholeMs.toFixed(0)} for the whole encoding`);
  t.true(bytes.equals(whole), 'the same bytes as the encoding in one piece');
  t.is(Object.keys(decodeObject(bytes).data as object).length, KEYS);
  // encoded once: the next answer is the kept bytes, in one piece
  const again = await fetch(url, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
  t.is(again.headers.get('content-length'), String(bytes.length));
  t.true(Buffer.from(await again.arrayBuffer()).equals(bytes));
});

test.serial('a short list of large ConfigMaps as YAML: written in slices too, each large member itself in slices', async (t) => {
  t.is((await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'wide-list' } })).status, 201);
  for (const name of ['a', 'b', 'c']) {
    const data = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`${name}-${i}`, `value-${i}`]));
    t.is((await srv.req('POST', '/api/v1/namespaces/wide-list/configmaps', { metadata: { name }, data })).status, 201);
  }
  const { whole, wholeMs } = await wholeYaml('/api/v1/namespaces/wide-list/configmaps');
  const { result: [status, text], heldMs } = await withLongestHold(async () => {
    const r = await fetch(`${srv.url}/api/v1/namespaces/wide-list/configmaps`, { headers: { accept: 'application/yaml' } });
    return [r.status, await r.text()] as const;
  });
  t.log(`the whole list in one piece: ${wholeMs.toFixed(0)} ms; longest hold while sliced: ${heldMs.toFixed(0)} ms`);
  t.is(status, 200);
  t.is(text, whole, 'the same text as the list written whole');
  t.true(heldMs < wholeMs / 3, `held the loop ${heldMs.toFixed(0)} ms of ${wholeMs.toFixed(0)}`);
});
