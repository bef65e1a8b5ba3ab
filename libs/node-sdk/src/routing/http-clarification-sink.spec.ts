import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClarificationSink } from './http-clarification-sink';

describe('HttpClarificationSink', () => {
  it('sends choices with the node token, batches what piles up, and drops (logged) what the control plane refuses', async () => {
    const bodies: { auth?: string; choices: unknown[] }[] = [];
    let status = 202;
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        bodies.push({ auth: req.headers.authorization, choices: (JSON.parse(raw) as { choices: unknown[] }).choices });
        res.writeHead(req.url === '/node/v1/clarifications' ? status : 404).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const warnings: Record<string, unknown>[] = [];
    const sink = new HttpClarificationSink(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, () => 'node-jwt', {
      warn: (f) => warnings.push(f),
    });
    const choice = (n: number) => ({ text: `message ${n} ${'x'.repeat(3000)}`, capabilityId: 'invoice-lookup', tenant: 'acme' });
    sink.record(choice(1));
    sink.record(choice(2));
    sink.record(choice(3));
    await sink.flush();
    expect(bodies.map((b) => b.choices.length)).toEqual([1, 2]);
    expect(bodies[0].auth).toBe('Bearer node-jwt');
    expect((bodies[0].choices[0] as { text: string }).text).toHaveLength(2000);
    sink.record({ text: 'pay\u0000 the bill', capabilityId: 'invoice-lookup', tenant: 'acme' });
    await sink.flush();
    expect(bodies.at(-1)!.choices).toEqual([{ text: 'pay the bill', capabilityId: 'invoice-lookup', tenant: 'acme' }]);
    status = 400;
    sink.record(choice(4));
    await sink.flush();
    expect(warnings).toEqual([expect.objectContaining({ status: 400, dropped: 1 })]);
    await new Promise<void>((r) => server.close(() => r()));
    sink.record(choice(5));
    await sink.flush();
    expect(warnings).toHaveLength(2);
  });
});
