/**
 * Starts test/support/oidc-provider.mjs (a real `oidc-provider` instance) as a child process and
 * answers its issuer URL once it listens; `stop()` ends it.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './free-port';

export interface TestOidcProvider {
  issuer: string;
  stop(): Promise<void>;
}

export async function startOidcProvider(options: {
  clientId: string;
  redirectUri: string;
  audience: string;
  accounts: Record<string, { roles: string[]; teams: string[] }>;
}): Promise<TestOidcProvider> {
  const port = await freePort();
  const child = fork(join(__dirname, 'oidc-provider.mjs'), [], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      CLIENT_ID: options.clientId,
      REDIRECT_URI: options.redirectUri,
      AUDIENCE: options.audience,
      ACCOUNTS: JSON.stringify(options.accounts),
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the OpenID provider did not start within 180 s')), 180_000);
    child.once('message', (m: { ready?: string }) => (clearTimeout(timer), m.ready ? resolve(m.ready) : reject(new Error('bad message'))));
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`the OpenID provider exited with ${code}`))));
  });
  return {
    issuer,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
