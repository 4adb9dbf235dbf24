import { createServer } from '../server/server.ts';
import { FlagError, parseServeFlags, serveHelp } from '../config/flags.ts';

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${serveHelp()}\n`);
    return 0;
  }
  let flags;
  try {
    flags = parseServeFlags(argv);
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (flags.insecurePort === undefined && flags.securePort === undefined) flags.insecurePort = 8080;
  const server = await createServer(flags);
  if (server.insecureUrl) process.stderr.write(`portcullis: serving plain HTTP on ${server.insecureUrl}\n`);
  if (server.secureUrl) process.stderr.write(`portcullis: serving HTTPS on ${server.secureUrl}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}
