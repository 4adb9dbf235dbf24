// Load generator in its own process (the `e2e` scenario's fallback when `wrk` is not installed):
// argv[2] is a JSON autocannon options object; prints one JSON line {rps, non2xx, errors}.
import autocannon from 'autocannon';

const opts = JSON.parse(process.argv[2]);
const r = await autocannon({ connections: 50, pipelining: 1, ...opts, tlsOptions: { rejectUnauthorized: false } });
process.stdout.write(`${JSON.stringify({ rps: r.requests.average, non2xx: r.non2xx, errors: r.errors })}\n`);
