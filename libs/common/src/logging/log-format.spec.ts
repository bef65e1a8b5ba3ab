import { logFormat } from './logging.module';

describe('logFormat (logs for people in a terminal, JSON in production)', () => {
  it('auto: pretty only in a terminal outside production; JSON when piped or in production', () => {
    expect(logFormat({ LOG_FORMAT: 'auto', NODE_ENV: 'development' }, true)).toBe('pretty');
    expect(logFormat({ LOG_FORMAT: 'auto', NODE_ENV: 'development' }, false)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'auto', NODE_ENV: 'production' }, true)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'auto', NODE_ENV: 'test' }, false)).toBe('json');
  });

  it('an explicit LOG_FORMAT wins over the terminal and the environment', () => {
    expect(logFormat({ LOG_FORMAT: 'json', NODE_ENV: 'development' }, true)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'pretty', NODE_ENV: 'production' }, false)).toBe('pretty');
  });
});
