// The Lambda runtime for one packaged handler, locally (test/deploy/lambda-package.ts):
//   node lambda-host.mjs <bundle.mjs> <export> <port> <timeoutSeconds>
// POST /invoke            the body is the event; the answer is the handler's result (500: it threw)
// POST /http/<path>       API Gateway HTTP API in front: payload v2, text bodies as they are,
//                         413 past API Gateway's 10 MB or Lambda's 6 MB synchronous payload
// GET  /stats             { maxRssBytes }: the process's peak resident memory
/* global process, console, Buffer, URL */
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

const [bundle, exportName, port, timeoutSeconds] = process.argv.slice(2);
const handler = (await import(pathToFileURL(bundle).href))[exportName];
if (typeof handler !== 'function') throw new Error(`${bundle} exports no function ${exportName}`);

const API_GATEWAY_MAX = 10 * 1024 * 1024;
const LAMBDA_SYNC_MAX = 6 * 1024 * 1024;

function context() {
  const deadline = Date.now() + Number(timeoutSeconds) * 1000;
  return { awsRequestId: `local-${Date.now()}`, getRemainingTimeInMillis: () => deadline - Date.now() };
}

function read(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function httpEvent(req, body, path) {
  const headers = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const text = /^(application\/json|text\/|application\/x-www-form-urlencoded)/.test(headers['content-type'] ?? '');
  return {
    version: '2.0',
    routeKey: `POST ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers,
    requestContext: { requestId: `local-${Date.now()}`, http: { method: req.method, path, sourceIp: '127.0.0.1' } },
    body: text ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !text,
  };
}

createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://local');
    if (url.pathname === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ maxRssBytes: process.resourceUsage().maxRSS * 1024 }));
    }
    const body = await read(req);
    if (url.pathname === '/invoke') {
      const result = await handler(JSON.parse(body.toString('utf8')), context());
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(result === undefined ? '' : JSON.stringify(result));
    }
    if (url.pathname.startsWith('/http/')) {
      const event = httpEvent(req, body, url.pathname.slice('/http'.length));
      // What API Gateway refuses before the function runs.
      if (body.length > API_GATEWAY_MAX || Buffer.byteLength(JSON.stringify(event)) > LAMBDA_SYNC_MAX) {
        res.writeHead(413, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ message: 'Request Entity Too Large' }));
      }
      const result = await handler(event, context());
      res.writeHead(result.statusCode, result.headers ?? {});
      return res.end(result.body ?? '');
    }
    res.writeHead(404);
    res.end();
  } catch (err) {
    console.error(err);
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ errorMessage: String(err?.message ?? err) }));
  }
}).listen(Number(port), '127.0.0.1', () => console.log('lambda host ready'));
