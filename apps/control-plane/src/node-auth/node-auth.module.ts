import { Module } from '@nestjs/common';
import { NodeAuthenticator } from './node-authenticator';
import { NodeTokenGuard } from './node-token.guard';

/** Node-token authentication shared by every /node/v1 feature (one memoized verifier per process). */
@Module({ providers: [NodeAuthenticator, NodeTokenGuard], exports: [NodeAuthenticator, NodeTokenGuard] })
export class NodeAuthModule {}
