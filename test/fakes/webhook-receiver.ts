// A webhook receiver on 127.0.0.1 answering 200 to every delivery, keeping each body and the
// trace context it came with.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookReceiver {
  url: string;
  bodies: string[];
  /** Each delivery's `traceparent` header, in the order of `bodies`. */
  traceparents: Array<string | undefined>;
  server: Server;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const bodies: string[] = [];
  const traceparents: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      bodies.push(body);
      traceparents.push(req.headers.traceparent as string | undefined);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies, traceparents, server };
}
