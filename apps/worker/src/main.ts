import { bootstrapFastifyApp } from '@cp/common';
import { WorkerModule } from './worker.module';

void bootstrapFastifyApp(WorkerModule, (config) => config.WORKER_PORT, 'worker');
