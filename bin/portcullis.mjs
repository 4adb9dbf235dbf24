#!/usr/bin/env node
// Launcher: run the TypeScript entry point through tsx so `npx portcullis ...` works without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
