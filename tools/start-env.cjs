// The environment `npm start` gives its apps (tools/start.cjs): the caller's, plus the demo's
// one-click console sign-in (CONSOLE_DEV_SIGN_IN=true, ADR 0210) when nothing says otherwise and
// the configuration would accept it: not in production, HOST on loopback. Kept apart so a test
// can load the config that `npm start` produces.
const loopback = (host) => {
  const h = String(host)
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
};

function startEnv(processEnv, isTTY = false) {
  const env = { ...processEnv };
  // The apps write to our pipes, not to the terminal: tell them to log for people when we are in one.
  if (isTTY && !env.LOG_FORMAT && env.NODE_ENV !== 'production') env.LOG_FORMAT = 'pretty';
  if (!env.CONSOLE_DEV_SIGN_IN && env.NODE_ENV !== 'production' && loopback(env.HOST || '127.0.0.1')) env.CONSOLE_DEV_SIGN_IN = 'true';
  return env;
}

module.exports = { startEnv };
