#!/usr/bin/env node
// Launcher for the compiled command (dist/, made by `npm run build`): plain JavaScript, no transpiler at
// start-up. From a checkout without a build, say what to run instead of failing on a missing module.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'portcullis: dist/main.js is missing; run `npm run build` first ' +
      '(or `npm run portcullis -- <command>` to run the TypeScript sources through tsx)\n',
  );
  process.exit(2);
}
await import(entry.href);
