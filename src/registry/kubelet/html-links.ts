// Links inside proxied HTML pages, rewritten as the reference's proxy transport does: a page served
// by a pod or node links to `/x`, which the browser must fetch through this server's proxy path.
// Only HTML is touched, and only bodies we can read (identity or gzip); anything else streams as is.
import type { Readable, Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Transform as TransformStream } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { RewritingStream } from 'parse5-html-rewriting-stream';

/** The attributes that hold URLs, by element (the reference's list, from the HTML 4 and 5 specs). */
const LINK_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href'],
  applet: ['codebase'],
  area: ['href'],
  audio: ['src'],
  base: ['href'],
  blockquote: ['cite'],
  body: ['background'],
  button: ['formaction'],
  command: ['icon'],
  del: ['cite'],
  embed: ['src'],
  form: ['action'],
  frame: ['longdesc', 'src'],
  head: ['profile'],
  html: ['manifest'],
  iframe: ['longdesc', 'src'],
  img: ['longdesc', 'src', 'usemap'],
  input: ['src', 'usemap', 'formaction'],
  ins: ['cite'],
  link: ['href'],
  object: ['classid', 'codebase', 'data', 'usemap'],
  q: ['cite'],
  script: ['src'],
  source: ['src'],
  video: ['poster', 'src'],
};

/** Whether a response body is an HTML page whose encoding we can read and write back. */
export function rewritableHtml(contentType: unknown, contentEncoding: unknown): boolean {
  if (typeof contentType !== 'string' || !/^text\/html\b/i.test(contentType.trim())) return false;
  const enc = typeof contentEncoding === 'string' ? contentEncoding.trim().toLowerCase() : '';
  return enc === '' || enc === 'identity' || enc === 'gzip';
}

/** Bytes to UTF-8 text for the tokenizer (which reads strings only), multi-byte characters kept whole. */
function utf8Text(): Transform {
  const decoder = new StringDecoder('utf8');
  return new TransformStream({
    // the readable side hands on strings: the tokenizer throws on anything else
    encoding: 'utf8',
    decodeStrings: true,
    transform(chunk: Buffer, _enc, done) {
      done(null, decoder.write(chunk));
    },
    flush(done) {
      done(null, decoder.end());
    },
  });
}

/**
 * The stages a page goes through: (gunzip), text, link rewriting, (gzip). `rewrite` maps one URL
 * attribute value; the rest of the page is passed through as written.
 */
export function htmlLinkStages(contentEncoding: unknown, rewrite: (url: string) => string): Array<Transform | Readable> {
  const rewriter = new RewritingStream();
  rewriter.on('startTag', (tag) => {
    const names = Object.hasOwn(LINK_ATTRIBUTES, tag.tagName) ? LINK_ATTRIBUTES[tag.tagName] : undefined;
    if (names) for (const attr of tag.attrs) if (names.includes(attr.name)) attr.value = rewrite(attr.value);
    rewriter.emitStartTag(tag);
  });
  const gzip = typeof contentEncoding === 'string' && contentEncoding.trim().toLowerCase() === 'gzip';
  return gzip ? [createGunzip(), utf8Text(), rewriter, createGzip()] : [utf8Text(), rewriter];
}
