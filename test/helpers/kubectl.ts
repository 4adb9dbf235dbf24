import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The machine's own kubectl (client 1.32; or the binary `bin`) against a server URL, with a private discovery cache. */
export function kubectlFor(server: string, extra: string[] = [], bin = 'kubectl') {
  const cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
  const files = mkdtempSync(join(tmpdir(), 'kubectl-files-'));
  const run = (args: string[], stdin?: string): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const child = execFile(bin, [`--server=${server}`, `--cache-dir=${cacheDir}`, ...extra, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
      if (stdin !== undefined) child.stdin!.end(stdin);
    });
  return {
    run,
    /** Write a manifest to a temp file and return its path. */
    file(name: string, content: string): string {
      const p = join(files, name);
      writeFileSync(p, content);
      return p;
    },
  };
}
