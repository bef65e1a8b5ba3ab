import { bootstrapFastifyApp } from '@cp/common';
import { AppModule } from './app.module';

void bootstrapFastifyApp(AppModule, (config) => config.CONTROL_PLANE_PORT, 'control-plane');
