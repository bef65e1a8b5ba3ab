import { Inject } from '@nestjs/common';
import { ConfigError, loadConfig, type AppConfig } from './config';

export const AppConfigToken = Symbol('APP_CONFIG');

/** Parameter decorator: inject the validated config. */
export const InjectConfig = (): ParameterDecorator => Inject(AppConfigToken);

/** A process with a bad configuration stops at boot with a message naming the variable. */
export function loadConfigOrExit(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
