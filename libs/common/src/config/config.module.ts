import { Global, Module } from '@nestjs/common';
import { AppConfigToken, loadConfigOrExit } from './config.provider';

/** Provides the validated AppConfig to every module under the APP_CONFIG token. */
@Global()
@Module({
  providers: [{ provide: AppConfigToken, useFactory: loadConfigOrExit }],
  exports: [AppConfigToken],
})
export class AppConfigModule {}
