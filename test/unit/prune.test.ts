// Unknown fields of built-in kinds (src/api/prune.ts) and the Warning header that reports them
// (src/server/warnings.ts). The HTTP side is test/integration/unknown-fields.test.ts.
import test from 'ava';
import { droppedFields, pruneUnknown } from '../../src/api/prune.ts';
import { list, map, struct } from '../../src/api/validation/schema.ts';
import { warningHeaderValues } from '../../src/server/warnings.ts';

const container = struct({ name: 'string', image: 'string', env: list(struct({ name: 'string', value: 'string' })) });
const shape = struct({
  spec: struct({ replicas: 'int32', containers: list(container), selector: map('string'), volumes: map(struct({ path: 'string' })), raw: 'object', anything: 'any' }),
  status: struct({ phase: 'string' }),
});

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

test('drops members the shape does not name, at every level, and records their paths', (t) => {
  const input = deepFreeze({
    extra: 1,
    spec: {
      replicas: 2,
      bogus: { deep: true },
      containers: [{ name: 'a', image: 'i', ports: [80] }, { name: 'b', env: [{ name: 'E', value: 'v', from: 'x' }] }],
      volumes: { data: { path: '/d', mode: 7 } },
    },
    status: { phase: 'Running', podIP: '1.2.3.4' },
  });
  const dropped = droppedFields();
  const out = pruneUnknown(input, shape, '', dropped);
  t.deepEqual(out, {
    spec: {
      replicas: 2,
      containers: [{ name: 'a', image: 'i' }, { name: 'b', env: [{ name: 'E', value: 'v' }] }],
      volumes: { data: { path: '/d' } },
    },
    status: { phase: 'Running' },
  });
  t.deepEqual(dropped.paths, [
    'extra',
    'spec.bogus',
    'spec.containers[0].ports',
    'spec.containers[1].env[0].from',
    'spec.volumes[data].mode',
    'status.podIP',
  ]);
  t.is(dropped.count, 6);
  // the frozen input is untouched (a stored object or a patch's shared subtree may be passed)
  t.is(input.extra, 1);
  t.deepEqual(input.spec.containers[0].ports, [80]);
});

test('nothing to drop: the very same object comes back, and untouched subtrees are shared', (t) => {
  const clean = deepFreeze({ spec: { replicas: 1, containers: [{ name: 'a' }], selector: { app: 'x' } } });
  t.is(pruneUnknown(clean, shape, ''), clean);
  const mixed = deepFreeze({ spec: { replicas: 1, containers: [{ name: 'a' }], odd: 1 }, status: { phase: 'P' } });
  const out = pruneUnknown(mixed, shape, '');
  t.not(out, mixed);
  t.is(out.status, mixed.status);
  t.is(out.spec.containers, mixed.spec.containers);
  t.deepEqual(Object.keys(out.spec), ['replicas', 'containers']);
});

test('free-form fields and map keys are kept; wrong types are left for the type check', (t) => {
  const input = {
    spec: {
      selector: { 'any/key': 'v', constructor: 'c', ['__proto__']: 'p' },
      raw: { whatever: { nested: [1, { x: 2 }] } },
      anything: [{ a: 1 }],
      replicas: 'three',
      containers: { not: 'a list' },
    },
  };
  // a data key named __proto__ (as JSON.parse makes it)
  Object.defineProperty(input.spec.selector, '__proto__', { value: 'p', enumerable: true, configurable: true, writable: true });
  const out = pruneUnknown(input, shape, '');
  t.is(out, input);
  t.deepEqual(Object.keys(out.spec.selector), ['any/key', 'constructor', '__proto__']);
});

test('keys that name Object.prototype members are not fields, and a dropped object never reaches a prototype', (t) => {
  const input = JSON.parse('{"constructor":{"prototype":{"polluted":1}},"toString":1,"__proto__":{"polluted":2},"hasOwnProperty":0,"spec":{"replicas":1,"__proto__":{"replicas":5}}}') as Record<string, unknown>;
  const dropped = droppedFields();
  const out = pruneUnknown(input, shape, '', dropped) as Record<string, unknown>;
  t.deepEqual(Object.keys(out), ['spec']);
  t.deepEqual(Object.keys(out.spec as object), ['replicas']);
  t.is(Object.getPrototypeOf(out), Object.prototype);
  t.is(Object.getPrototypeOf(out.spec), Object.prototype);
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.deepEqual(dropped.paths, ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'spec.__proto__']);
});

test('a map key named __proto__ stays a data key when its value is pruned', (t) => {
  const input = JSON.parse('{"spec":{"volumes":{"__proto__":{"path":"/p","odd":1},"v":{"path":"/v"}}}}') as { spec: { volumes: Record<string, unknown> } };
  const out = pruneUnknown(input, shape, '');
  t.deepEqual(Object.keys(out.spec.volumes), ['__proto__', 'v']);
  t.deepEqual(Object.getOwnPropertyDescriptor(out.spec.volumes, '__proto__')?.value, { path: '/p' });
  t.is(Object.getPrototypeOf(out.spec.volumes), Object.prototype);
});

test('the paths kept are bounded, the count is not, and pruning goes on past the bound', (t) => {
  const input: Record<string, unknown> = { spec: { replicas: 1 } };
  for (let i = 0; i < 10_000; i++) input[`k${i}`] = i;
  const dropped = droppedFields(64);
  const out = pruneUnknown(input, shape, '', dropped);
  t.deepEqual(out, { spec: { replicas: 1 } });
  t.is(dropped.paths.length, 64);
  t.is(dropped.count, 10_000);
});

test('Warning header values: code 299, agent "-", a quoted string as the reference writes it', (t) => {
  t.deepEqual(warningHeaderValues(['unknown field "spec.foo"', 'unknown field "spec.foo"', 'plain']), ['299 - "unknown field \\"spec.foo\\""', '299 - "plain"']);
  // everything outside printable ASCII is a \u escape, so the value is the same bytes however Node writes it
  t.deepEqual(warningHeaderValues(['a\nb\u007fc\\ é✓\u{1F600}']), ['299 - "a\\u000ab\\u007fc\\\\ \\u00e9\\u2713\\ud83d\\ude00"']);
});

test('Warning header values: past 4 KiB in all each is cut to 256 characters and the rest left out', (t) => {
  const small = warningHeaderValues(['x'.repeat(1000), 'y'.repeat(1000)]);
  t.deepEqual(small.map((v) => v.length), [1008, 1008]);
  const many = warningHeaderValues(Array.from({ length: 64 }, (_, i) => `${i}`.padEnd(1000, 'z')));
  t.true(many.every((v) => v.length <= 256 + 8), 'each cut to 256 characters');
  t.is(many.length, 16); // 16 × 256 = 4096
  t.true(many[0].startsWith('299 - "0zz'));
});
