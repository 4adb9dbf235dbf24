// The folder layering of ../shared/ARCHITECTURE.md, checked by `npm run lint:deps` (a step of `npm test`).
//
// Layers, lowest first. A module may import its own layer and the layers below it, never one above
// ("nothing imports upward"); type-only imports count too, since an interface that a lower layer needs
// belongs in that lower layer. Rules between modules of one layer (siblings) are listed after the
// layer rules. A new folder under src/ must be given a layer here (rule `layer-unknown`).
const LAYERS = [
  // the Status builders: every layer throws typed errors ("errors are values")
  { name: 'errors', path: '^src/request/errors\\.ts$' },
  // the base: objects and the catalogue's types and lookups, the store, the policy compiler and engine
  // host, codecs, option types and the kubeconfig format, the development PKI, the metrics registry
  // (src/observability: counters and histograms, no request types); none knows of requests
  { name: 'base', path: '^src/(api|store|policy|codec|config|certs|observability)/' },
  // request attributes, their resolver, query parsing
  { name: 'request', path: '^src/request/' },
  { name: 'authn', path: '^src/authn/' },
  { name: 'authz', path: '^src/authz/' },
  // the generic registry: REST for every kind, driven by the catalogue rows and the strategies they
  // carry (handed to it at run time), so it names no kind and imports no kind module
  { name: 'registry', path: '^src/registry/' },
  // one module per kind (catalogue rows, strategy, subresource handlers built on the registry) and the
  // catalogue table assembled from them
  { name: 'kinds', path: '^src/kinds/' },
  // side by side above the registry: the front door (request-info → authn → impersonation → authz), the
  // admission plugins (they implement the registry's admission interface; the server lists them) and the
  // controllers (they act through the registry); see `frontdoor-opens-no-backend`, `backend-not-frontdoor`
  { name: 'frontdoor|admission|controllers', path: '^src/(frontdoor|admission|controllers)/' },
  // app assembly, listeners, middleware, watch streaming; src/server/front-door.ts adapts the front door
  { name: 'server', path: '^src/server/' },
  // beside the server: `portcullis proxy` (front door → routes → upstreams); see `proxy-opens-no-backend`
  { name: 'proxy', path: '^src/proxy/' },
  { name: 'cli', path: '^src/cli/' },
  { name: 'main', path: '^src/main\\.ts$' },
];

// A module belongs to the first layer whose path matches (src/request/errors.ts is `errors`, not
// `request`), so each rule keeps the lower layers' paths out with `pathNot`.
const lowerThan = (i) => LAYERS.slice(0, i).map((l) => l.path);
const above = (i) => LAYERS.slice(i + 1).map((l) => l.path);

/** One forbidden edge: from modules matching `from` to modules matching `to` (dependency-cruiser's shapes). */
const rule = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

const upward = LAYERS.slice(0, -1).map((layer, i) =>
  rule(
    `no-upward-from-${layer.name.replaceAll('|', '-')}`,
    `${layer.name} imports only its own layer and those below it (../shared/ARCHITECTURE.md)`,
    { path: layer.path, pathNot: lowerThan(i) },
    { path: above(i), pathNot: [...lowerThan(i), layer.path] },
  ),
);

// authn/authz reached from the registry side only through their interface modules
const AUTH_INTERFACES = ['^src/(authn|authz)/types\\.ts$', '^src/(authn|authz)/[^/]+/types\\.ts$'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    rule('layer-unknown', 'every module under src/ belongs to a layer of this file; give a new folder its place',
      { path: '^src/', pathNot: LAYERS.map((l) => l.path) }, {}),
    rule('authz-not-store',
      'authz imports neither the registry (a layer above) nor the store: live RBAC data comes from an injected event source',
      { path: '^src/authz/' }, { path: '^src/store/' }),
    rule('auth-through-interfaces',
      'registry, kinds, admission and controllers use authn/authz only through their types.ts interface modules',
      // one exception: RBAC's write side (registry/rbac: the escalation check, the bootstrap policy) works on
      // the same RBAC model (objects, rules, coverage) the authorizer compiles
      { path: '^src/(registry|kinds|admission|controllers)/', pathNot: '^src/registry/rbac/' },
      { path: '^src/(authn|authz)/', pathNot: AUTH_INTERFACES }),
    rule('rbac-write-side-through-model',
      'RBAC\'s write side reaches authz only through its interfaces and the RBAC model modules, never the live authorizer',
      { path: '^src/registry/rbac/' },
      { path: '^src/(authn|authz)/', pathNot: [...AUTH_INTERFACES, '^src/authz/rbac/(objects|rules|covers|authorizer)\\.ts$'] }),
    rule('frontdoor-opens-no-backend',
      'the front door ends at authorization: a proxy-only process opens no store, registry or controllers',
      { path: '^src/frontdoor/' }, { path: '^src/(store|registry|kinds|admission|controllers)/' }),
    rule('proxy-opens-no-backend',
      'the auth proxy is the front door and the policy in front of other services: no store, registry, kinds, admission or controllers, and not the API server',
      { path: '^src/proxy/' }, { path: '^src/(store|registry|kinds|admission|controllers|server)/' }),
    rule('backend-not-frontdoor', 'admission plugins and controllers act on the registry, never through the front door',
      { path: '^src/(admission|controllers)/' }, { path: '^src/frontdoor/' }),
    rule('cli-only-from-main', 'nothing in src/ but src/main.ts (and the commands themselves) imports src/cli',
      { path: '^src/', pathNot: ['^src/main\\.ts$', '^src/cli/'] }, { path: '^src/cli/' }),
    rule('src-not-test', 'production code imports nothing from test/ (test oracles and fixtures stay there)',
      { path: '^src/' }, { path: '^test/' }),
    // runtime imports only: a cycle closed by `import type` is erased by the compiler and cannot break
    // module initialisation, and the upward type imports that close such cycles are layering errors above
    rule('no-circular', 'no module reaches itself through its runtime imports',
      { path: '^src/' },
      { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } }),
    rule('src-not-dev-dependency',
      'the container carries production dependencies only: src/ may not need a devDependency at run time',
      { path: '^src/' }, { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] }),
    rule('src-not-unlisted-package', 'every package src/ imports is listed in package.json',
      { path: '^src/' }, { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] }),
    rule('not-to-unresolvable', 'every import resolves to a file', { path: '^src/' }, { couldNotResolve: true }),
  ],
  options: {
    // the AssemblyScript engine is compiled on its own (scripts/build-engine.mjs), not imported
    exclude: { path: '^src/policy/engine/' },
    doNotFollow: { path: ['node_modules'] },
    // keep `import type` edges: an interface imported upward is a layering error too
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
