// The filter chain's Koa application: answers written by the chain itself skip Koa's per-request
// finish listeners, and every other answer comes out as Koa would have written it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import Koa from 'koa';
import { FilterApp } from '../../src/server/filter-app.ts';

/** `middleware` in a FilterApp (or the given Koa app) on a loopback port while `fn` runs. */
async function serve(middleware: Koa.Middleware, fn: (base: string) => Promise<void>, app: Koa = new FilterApp()): Promise<void> {
  app.silent = true; // the thrown 500 below is expected
  app.use(middleware);
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

test('a status and body left to Koa keep the status the chain set', async (t) => {
  await serve(async (ctx) => {
    await Promise.resolve();
    ctx.status = 503;
    ctx.body = 'not ready';
  }, async (base) => {
    const res = await fetch(`${base}/readyz`);
    t.is(res.status, 503);
    t.is(await res.text(), 'not ready');
  });
});

test('a chain that answers nothing is Koa\'s 404', async (t) => {
  await serve(async () => {}, async (base) => {
    const res = await fetch(`${base}/nothing`);
    t.is(res.status, 404);
    t.is(await res.text(), 'Not Found');
  });
});

test('an error the chain lets through gets Koa\'s answer: its exposed status, or a bare 500', async (t) => {
  await serve(async (ctx) => {
    if (ctx.path === '/teapot') ctx.throw(418, 'short and stout');
    throw new Error('secret detail');
  }, async (base) => {
    const exposed = await fetch(`${base}/teapot`);
    t.is(exposed.status, 418);
    t.is(await exposed.text(), 'short and stout');
    const hidden = await fetch(`${base}/boom`);
    t.is(hidden.status, 500);
    t.is(await hidden.text(), 'Internal Server Error');
  });
});

test('an answer the chain writes itself leaves no finish listeners on the response or socket', async (t) => {
  /** The listeners on the response and its socket at the point where the chain writes its answer. */
  const listenersAtAnswer = async (app: Koa): Promise<number> => {
    let count = -1;
    await serve(async (ctx) => {
      ctx.respond = false;
      await Promise.resolve();
      // Koa's own handleRequest would have hung its on-finished listeners here by now
      count = ctx.res.listenerCount('finish') + ctx.req.socket.listenerCount('error') + ctx.req.socket.listenerCount('close');
      ctx.res.writeHead(200, { 'Content-Type': 'text/plain' });
      ctx.res.end('written by the chain');
    }, async (base) => {
      t.is(await (await fetch(`${base}/a`)).text(), 'written by the chain');
    }, app);
    return count;
  };
  const filterApp = await listenersAtAnswer(new FilterApp());
  const plainKoa = await listenersAtAnswer(new Koa());
  // the comparison keeps the test honest: plain Koa does hang more listeners at the same point
  t.true(filterApp >= 0 && plainKoa > filterApp, `FilterApp ${filterApp} vs Koa ${plainKoa}`);
});
