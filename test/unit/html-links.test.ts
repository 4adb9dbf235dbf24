import test from 'ava';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RewritingStream } from 'parse5-html-rewriting-stream';
import { htmlLinkStages, MAX_REWRITTEN_HTML } from '../../src/registry/kubelet/html-links.ts';

// The proxy's HTML link rewriting: parse5's rewriter over the first MAX_REWRITTEN_HTML characters of
// a page, the rest passed as written.

const prefixLink = (u: string): string => (u.startsWith('/') ? `/P${u}` : u);

async function rewritten(chunks: readonly string[], rewrite: (u: string) => string, limit?: number): Promise<string> {
  let out = '';
  const sink = new Writable({ write(c: Buffer, _e, done) { out += c.toString(); done(); } });
  await pipeline([Readable.from(chunks.map((c) => Buffer.from(c))), ...htmlLinkStages(undefined, rewrite, limit), sink]);
  return out;
}

/** The rewriting as parse5 alone does it (the whole page, no bound): the oracle. */
async function oracle(chunks: readonly string[], rewrite: (u: string) => string): Promise<string> {
  const r = new RewritingStream();
  r.on('startTag', (tag) => {
    for (const attr of tag.attrs) if (['href', 'src', 'action'].includes(attr.name)) attr.value = rewrite(attr.value);
    r.emitStartTag(tag);
  });
  let out = '';
  r.on('data', (c: string) => (out += c));
  const ended = new Promise((resolve) => r.on('end', resolve));
  for (const c of chunks) r.write(c);
  r.end();
  await ended;
  return out;
}

/** A seeded page of tags, links, text, comments, CRLFs and multi-byte characters, cut into random chunks. */
function page(seed: number, parts: number): { html: string; chunks: string[] } {
  let s = seed;
  const rnd = (n: number): number => ((s = (s * 1103515245 + 12345) % 2 ** 31) % n);
  const bits = [
    () => `<a href="/p${rnd(99)}">l${rnd(9)}</a>`, () => `<img src="/i/${rnd(9)}.png" alt="ü">`, () => 'text ü€ ', () => '\r\n',
    () => `<form action="/f${rnd(9)}"><input name="q"></form>`, () => `<!-- c${rnd(9)} -->`, () => `<p class="x${rnd(9)}">`, () => '</p>',
    () => `<a href="http://elsewhere/${rnd(9)}">o</a>`, () => '<br/>', () => '<script src="/s.js"></script>',
  ];
  let html = '<!DOCTYPE html><html><body>';
  for (let i = 0; i < parts; i++) html += bits[rnd(bits.length)]();
  html += '</body></html>';
  const chunks: string[] = [];
  for (let at = 0; at < html.length;) {
    const n = 1 + rnd(40);
    chunks.push(html.slice(at, at + n));
    at += n;
  }
  return { html, chunks };
}

test('under the limit the page is rewritten exactly as parse5 alone rewrites it, however it is cut', async (t) => {
  let differ = 0;
  for (let seed = 1; seed <= 150; seed++) {
    const { chunks } = page(seed, 60);
    if ((await rewritten(chunks, prefixLink)) !== (await oracle(chunks, prefixLink))) differ++;
  }
  t.is(differ, 0);
});

test('past the limit the page goes on as written, from the first token not yet written out', async (t) => {
  // start tags written as parse5 writes them: with nothing to change, the page comes back byte for byte
  for (let seed = 1; seed <= 100; seed++) {
    const { html, chunks } = page(seed, 80);
    const limit = 1 + (seed * 37) % html.length;
    const out = await rewritten(chunks, (u) => u, limit);
    if (out !== html) t.fail(`seed ${seed}, limit ${limit}: ${JSON.stringify(out.slice(0, 200))}`);
  }
  // with a rewrite: the first links get the prefix, the ones past the limit do not, nothing else changes
  const links = Array.from({ length: 2000 }, (_, i) => `<a href="/x${i}">${i}</a>`);
  const html = `<html><body>${links.join('')}</body></html>`;
  const chunks = html.match(/[\s\S]{1,1000}/g)!;
  const out = await rewritten(chunks, prefixLink, 10_000);
  t.is(out.replaceAll('href="/P/', 'href="/'), html);
  const prefixed = (out.match(/href="\/P\//g) ?? []).length;
  t.true(prefixed > 300 && prefixed < 2000, `${prefixed} links rewritten`);
  t.true(out.endsWith(`<a href="/x1999">1999</a></body></html>`));
});

test('a token that never ends (an attribute, a text run) is not held: 40 MB pass in a moment', async (t) => {
  const MB = 1024 * 1024;
  for (const head of ['<html><body><a href="', '<html><body>']) {
    const chunks = [head, ...Array.from({ length: 40 * 16 }, () => 'A'.repeat(64 * 1024))];
    const started = process.hrtime.bigint();
    const out = await rewritten(chunks, prefixLink);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    t.is(out.length, head.length + 40 * MB);
    t.true(out.startsWith(head) && out.endsWith('AAAA'));
    // held whole, the tokenizer's buffer grew with every chunk: 20 MB took 4 s, 100 MB 77 s
    t.true(ms < 3000, `${head}: ${ms.toFixed(0)} ms`);
  }
  t.is(MAX_REWRITTEN_HTML, MB);
});
