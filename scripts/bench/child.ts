import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Start a process that prints its base URL as its first stdout line; resolve with it. */
export async function startChild(cmd: string, args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${cmd} exited with ${code} before printing its URL`)));
  });
  return { url, child };
}
