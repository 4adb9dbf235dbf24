// `npm run bench [-- scenario...]`: runs named scenarios (each a module exporting `run()`), printing
// one line per figure. With no name, every scenario runs.
const scenarios = ['rest', 'e2e', 'store', 'authz', 'authn', 'watch', 'storage', 'etcd-faults', 'startup', 'proxy', 'codec'];

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = wanted.length ? wanted : scenarios;
for (const name of names) {
  if (!scenarios.includes(name)) {
    console.error(`unknown scenario ${JSON.stringify(name)}; known: ${scenarios.join(', ')}`);
    process.exit(2);
  }
}
for (const name of names) {
  console.log(`== ${name}`);
  const mod = (await import(`./${name}.ts`)) as { default: () => Promise<void> };
  await mod.default();
}
process.exit(0);
