// The policy host (src/policy/host.ts) with a module shaped like one `opa build -t wasm` emits: it
// imports a JS builtin (so the SDK instantiates it), speaks ABI 1.1 (no opa_eval: the evaluation
// context path), and has neither in-place patches nor our compact export. It is our engine with
// those parts renamed away in the binary, so its decisions must equal the engine's.
import test from 'ava';
import { loadPolicy } from '@open-policy-agent/opa-wasm';
import { PolicyEvaluator, readEngine } from '../../src/policy/evaluator.ts';
import { PolicyHost } from '../../src/policy/host.ts';
import { writeBundle, readBundle, bundleModule } from '../../src/policy/bundle.ts';
import { ABAC_API_VERSION, compileAbac } from '../../src/policy/abac.ts';
import { toData } from '../../src/policy/format.ts';
import type { FlatRequest } from '../../src/policy/sar.ts';

const specs = [
  { user: 'alice', namespace: '*', resource: 'pods' },
  { group: 'ops', namespace: '*', resource: '*', apiGroup: '*', readonly: true },
];
const policyText = specs.map((spec) => JSON.stringify({ apiVersion: ABAC_API_VERSION, kind: 'Policy', spec })).join('\n');
const data = toData(compileAbac(policyText, 'policy.jsonl'));
const flat = (user: string, groups: string[], verb: string, namespace = 'a'): FlatRequest => ({
  user, groups, isResource: true, namespace, verb, apiGroup: '', resource: 'pods', subresource: '', name: '', path: '',
});
const requests = [flat('alice', [], 'delete'), flat('bob', ['ops'], 'get'), flat('bob', ['ops'], 'delete'), flat('carol', [], 'get', '')];

function leb(n: number): number[] {
  const out: number[] = [];
  do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n);
  return out;
}

function readLeb(b: Uint8Array, at: number): [value: number, next: number] {
  let v = 0;
  let shift = 0;
  for (;;) {
    const x = b[at++];
    v |= (x & 0x7f) << shift;
    shift += 7;
    if (!(x & 0x80)) return [v, at];
  }
}

/** A name as it appears in a module's import/export entries: length byte, bytes. */
const entryName = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s)]);

/** Rewrites one section (id) of a module, re-encoding its size. */
function editSection(wasm: Buffer, id: number, edit: (section: Buffer) => Buffer): Buffer {
  let at = 8;
  while (at < wasm.length) {
    const [size, body] = readLeb(wasm, at + 1);
    if (wasm[at] === id) {
      const section = edit(wasm.subarray(body, body + size));
      return Buffer.concat([wasm.subarray(0, at + 1), Buffer.from(leb(section.length)), section, wasm.subarray(body + size)]);
    }
    at = body + size;
  }
  throw new Error(`section ${id} not found`);
}

function renameInSection(wasm: Buffer, id: number, from: string, to: string): Buffer {
  return editSection(wasm, id, (section) => {
    const i = section.indexOf(entryName(from));
    if (i < 0) throw new Error(`${from} not found in section ${id}`);
    return Buffer.concat([section.subarray(0, i), entryName(to), section.subarray(i + 1 + from.length)]);
  });
}

const IMPORT_SECTION = 2;
const GLOBAL_SECTION = 6;
const EXPORT_SECTION = 7;
const I32_CONST = 0x41;

/** Sets an exported immutable i32 global (initialized by i32.const) to a small value. */
function setExportedGlobal(wasm: Buffer, name: string, value: number): Buffer {
  let index = -1;
  editSection(wasm, EXPORT_SECTION, (section) => {
    const i = section.indexOf(Buffer.concat([entryName(name), Buffer.from([0x03])]));
    if (i < 0) throw new Error(`global export ${name} not found`);
    index = readLeb(section, i + 2 + name.length)[0];
    return section;
  });
  return editSection(wasm, GLOBAL_SECTION, (section) => {
    const [count, first] = readLeb(section, 0);
    let at = first;
    for (let g = 0; g < count; g++) {
      at += 2; // value type, mutability
      if (section[at] !== I32_CONST) throw new Error('global initialized by something else than i32.const');
      const [, end] = readLeb(section, at + 1);
      if (g === index) return Buffer.concat([section.subarray(0, at + 1), Buffer.from([value]), section.subarray(end)]);
      at = end + 1; // the `end` opcode
    }
    throw new Error(`global ${index} not found`);
  });
}

/** Our engine dressed as an `opa build` module of ABI 1.1 (see the top of the file). */
async function opaLikeModule(): Promise<Buffer> {
  let wasm: Buffer = Buffer.from(await readEngine());
  // the abort hook becomes a builtin import: only the SDK provides those
  wasm = renameInSection(wasm, IMPORT_SECTION, 'opa_abort', 'opa_builtin0');
  wasm = setExportedGlobal(wasm, 'opa_wasm_abi_minor_version', 1);
  for (const name of ['opa_eval', 'opa_value_add_path', 'portcullis_decide']) {
    wasm = renameInSection(wasm, EXPORT_SECTION, name, `${name}_hidden`);
  }
  return wasm;
}

test('an opa-build-like module (JS builtin import, ABI 1.1) loads through the SDK and decides like the engine', async (t) => {
  const wasm = await opaLikeModule();
  const host = await PolicyHost.instantiate(wasm);
  t.is(host.minorVersion, 1);
  t.false(host.patchable);
  t.false(host.decidesFields);
  t.deepEqual(host.entrypoints, { 'portcullis/authz': 0, 'portcullis/allowed': 1 });
  const opaLike = await PolicyEvaluator.load(wasm, data);
  const engine = await PolicyEvaluator.engine(data);
  t.false(opaLike.fastPath);
  t.true(engine.fastPath);
  for (const r of requests) t.deepEqual(opaLike.decideRequest(r), engine.decideRequest(r));
  t.deepEqual(opaLike.decideRequest(flat('alice', [], 'delete')), { allowed: true, reason: 'allowed by line 1 of policy.jsonl' });
  // the unmodified SDK runs the same module (its own pre-1.2 path)
  const sdk = await loadPolicy(wasm);
  sdk.setData(data);
  const sar = { apiVersion: 'authorization.platform.io/v1beta1', kind: 'SubjectAccessReview', spec: { user: 'alice', resourceAttributes: { namespace: 'a', verb: 'get', resource: 'pods' } } };
  t.deepEqual(opaLike.evaluate(sar), sdk.evaluate(sar));
  t.deepEqual(opaLike.evaluate(sar), [{ result: { allowed: true, reason: 'allowed by line 1 of policy.jsonl' } }]);
});

test('a module without in-place patches takes full data instead, or refuses patches without it', async (t) => {
  const ev = await PolicyEvaluator.load(await opaLikeModule(), data);
  const patch = [{ path: ['portcullis', 'scopes', '*', 'users', 'dave'], value: [{ o: 9, reason: 'patched', rules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }] }] }];
  t.throws(() => ev.patch(patch), { message: /cannot be patched/ });
  t.false(ev.decideRequest(flat('dave', [], 'get')).allowed);
  ev.patch(patch, () => toData(compileAbac(`${policyText}\n{"user":"dave","namespace":"*","resource":"pods"}`, 'policy.jsonl')));
  t.deepEqual(ev.decideRequest(flat('dave', [], 'get')), { allowed: true, reason: 'allowed by line 3 of policy.jsonl' });
});

test('an OPA bundle holding such a module loads and names its entrypoints', async (t) => {
  const bundle = await readBundle(await writeBundle(await opaLikeModule(), data));
  const ev = await PolicyEvaluator.load(bundleModule(bundle, 'portcullis/allowed'), bundle.data, 'portcullis/allowed');
  t.is(ev.entrypointName, 'portcullis/allowed');
  t.deepEqual(ev.decideRequest(flat('bob', ['ops'], 'get')), { allowed: true, reason: '' });
  t.deepEqual(ev.decideRequest(flat('bob', ['ops'], 'delete')), { allowed: false, reason: '' });
});

test('evaluation errors are Errors (aborts, traps) and leave the host usable', async (t) => {
  for (const wasm of [await readEngine(), await opaLikeModule()]) {
    const ev = await PolicyEvaluator.load(wasm, data);
    t.throws(() => ev.evaluateJson('{"spec":'), { instanceOf: Error });
    t.deepEqual(ev.decideRequest(flat('alice', [], 'delete')), { allowed: true, reason: 'allowed by line 1 of policy.jsonl' });
  }
});

test('data patches survive later evaluations (inputs are written above the patched values)', async (t) => {
  const ev = await PolicyEvaluator.engine(data);
  const grant = (reason: string) => [{ o: 9, reason, rules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }] }];
  for (let i = 0; i < 50; i++) {
    ev.patch([{ path: ['portcullis', 'scopes', '*', 'users', `u${i}`], value: grant(`reason ${i} ${'x'.repeat(i * 40)}`) }]);
    // a large input right after a patch: must not overwrite it
    t.false(ev.decideRequest({ ...flat('nobody', Array.from({ length: 200 }, (_, g) => `group-${g}-${'y'.repeat(50)}`), 'get') }).allowed);
  }
  for (let i = 0; i < 50; i++) t.is(ev.decideRequest(flat(`u${i}`, [], 'get')).reason, `reason ${i} ${'x'.repeat(i * 40)}`);
});
