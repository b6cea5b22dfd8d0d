/**
 * The benchmark's baseline: a bare Node `http` server answering a fixed chat completion. What the
 * gateway adds on top of this (routing, auth, admission, the simulated model, the ledger write)
 * is the gateway's overhead.
 */
import http from 'node:http';

const body = JSON.stringify({
  id: 'chatcmpl-baseline',
  object: 'chat.completion',
  created: 0,
  model: 'baseline',
  choices: [{ index: 0, message: { role: 'assistant', content: 'You said: "ping".' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
});

const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const address = server.address() as import('node:net').AddressInfo;
  process.stdout.write(`${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
