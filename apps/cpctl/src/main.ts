/** cpctl entry point (run through apps/cpctl/bin/cpctl.cjs, the `cpctl` command). */
import { run } from './cli';

// cpctl is a client tool, not a service: the AppConfig of the servers does not apply, so it
// reads its own three variables (CPCTL_URL, CPCTL_TOKEN, CPCTL_TIMEOUT_MS, CPCTL_JWKS) from here only.
// eslint-disable-next-line no-restricted-properties
const env = process.env;

// `cpctl … | head` closes the pipe early: that is the reader's choice, not a crash.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

void run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env }).then((code) => {
  process.exitCode = code;
});
