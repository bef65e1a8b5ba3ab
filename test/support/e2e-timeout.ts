/**
 * End-to-end suites boot apps, databases and child processes (tsx, cpctl) in their hooks and
 * tests; on a 2-core machine under load that passes 30 s without anything being wrong. A hang
 * still fails, at 90 s. (A project's own `testTimeout` is ignored by jest-circus, which reads only
 * the global one, hence this file in the e2e project's setupFilesAfterEnv.)
 */
jest.setTimeout(90_000);
