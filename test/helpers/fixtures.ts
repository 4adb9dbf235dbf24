// A minimal valid object of every stored kind, for tests that walk the whole catalogue: each kind
// module's fixture (src/kinds/), under the names the tests have always used.
import { kinds } from '../../src/kinds/index.ts';

export const validBodies: Record<string, Record<string, unknown>> = Object.fromEntries(
  kinds.flatMap((m) => {
    if (!m.fixture) return [];
    const byGroup = Object.entries(m.fixture.byGroup ?? {}).map(([group, body]) => [`${m.kind}.${group}`, body] as const);
    return [[m.kind, m.fixture.body] as const, ...byGroup];
  }),
);

/** Names per kind where the default `<kind>-1` would be invalid. */
export function nameFor(kind: string, n = 1): string {
  const named = kinds.find((m) => m.kind === kind)?.fixture?.name;
  return named ? named(n) : `${kind.toLowerCase()}-${n}`;
}

/** A valid body of `kind` (served by `group`, where the group changes the shape) named `name`. */
export function bodyFor(kind: string, name: string, ns: string, group = '', suite = 'crud'): Record<string, unknown> {
  const fixture = validBodies[`${kind}.${group}`] ?? validBodies[kind] ?? {};
  // `$DOMAIN`: the name after its first label (a CRD's group is its name without the plural)
  const b = JSON.parse(JSON.stringify(fixture).replaceAll('$NS', ns).replaceAll('$DOMAIN', name.slice(name.indexOf('.') + 1))) as Record<string, unknown>;
  return { ...b, metadata: { name, labels: { suite } } };
}
