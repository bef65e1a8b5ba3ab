import { Module } from '@nestjs/common';
import { ConsoleRoutes } from './console.routes';

/** Serves the admin console (apps/console, built into CONSOLE_DIR) under /console. */
@Module({ providers: [ConsoleRoutes] })
export class ConsoleModule {}
