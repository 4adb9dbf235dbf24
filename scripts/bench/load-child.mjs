// Load generator in its own process (the HTTP scenarios' fallback when `wrk` is not installed):
// argv[2] is a JSON autocannon options object; prints one JSON line {rps, p99, non2xx, errors, requests}.
import autocannon from 'autocannon';

const opts = JSON.parse(process.argv[2]);
const r = await autocannon({ connections: 50, pipelining: 1, ...opts, tlsOptions: { rejectUnauthorized: false } });
process.stdout.write(`${JSON.stringify({ rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, requests: r.requests.total })}\n`);
