// The Status each refusal of the HTTP parser maps to (errors.unparsedRequest); the refusals a
// connection can be driven into quickly are also checked on the wire (parser-refusals.test.ts).
import test from 'ava';
import { errors } from '../../src/request/errors.ts';

const statusOf = (code: string | undefined) => errors.unparsedRequest(code, 16384)?.toStatus();

test('each parser refusal maps to its code and reason', (t) => {
  t.like(statusOf('HPE_INVALID_METHOD'), { code: 405, reason: 'MethodNotAllowed' });
  t.like(statusOf('HPE_HEADER_OVERFLOW'), { code: 431, message: "Request Header Fields Too Large: the request's header fields exceed 16384 bytes" });
  t.false('reason' in statusOf('HPE_HEADER_OVERFLOW')!, 'no reason of the API fits 431: it stays empty');
  t.like(statusOf('HPE_CHUNK_EXTENSIONS_OVERFLOW'), { code: 413, reason: 'RequestEntityTooLarge' });
  t.like(statusOf('ERR_HTTP_REQUEST_TIMEOUT'), { code: 408, reason: 'Timeout' });
  t.like(statusOf('HPE_INVALID_HEADER_TOKEN'), { code: 400, reason: 'BadRequest', message: 'the request is not well-formed HTTP/1.1' });
  t.like(statusOf('HPE_UNEXPECTED_CONTENT_LENGTH'), { code: 400, reason: 'BadRequest' });
});

test('connection errors get no answer', (t) => {
  for (const code of [undefined, 'ECONNRESET', 'EPIPE', 'ERR_SSL_WRONG_VERSION_NUMBER']) t.is(errors.unparsedRequest(code, 16384), undefined, String(code));
});
