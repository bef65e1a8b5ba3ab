/**
 * `node dist/apps/demo-upstream/src/main.js [--port 4000] [--host 127.0.0.1] [--public-url <origin>]`:
 * the gateway demo's upstream A2A agent (demo-upstream.ts). Options on the command line, not in the
 * environment: it is a stand-in for your own agent, not one of the product's configured apps.
 * Prints one line naming its JSON-RPC URL once it listens; stops on SIGINT or SIGTERM.
 */
import { parseArgs } from 'node:util';
import { startDemoUpstream } from './demo-upstream';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4000' },
    host: { type: 'string', default: '127.0.0.1' },
    'public-url': { type: 'string' },
  },
});

startDemoUpstream({ port: Number(values.port), host: values.host, publicUrl: values['public-url'] }).then(
  (upstream) => {
    process.stdout.write(`demo upstream listening: ${upstream.url}\n`);
    const stop = () => void upstream.close().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  },
  (error: Error) => {
    process.stderr.write(`demo upstream failed to start: ${error.message}\n`);
    process.exit(1);
  },
);
