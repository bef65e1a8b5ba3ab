import type { ApolloServerPlugin } from '@apollo/server';
import { ApiErrorCode } from '../errors';

const RETRY_AFTER_SECONDS = '5';

/**
 * A response carrying SERVICE_UNAVAILABLE (PostgreSQL down) leaves with HTTP 503 and Retry-After,
 * so load balancers, clients and the console treat it as retriable; the body keeps the GraphQL
 * errors. Apollo would otherwise answer 200 with the error inside.
 */
export function unavailableStatusPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
          if (!errors?.some((error) => error.extensions?.code === ApiErrorCode.ServiceUnavailable)) return;
          response.http.status = 503;
          response.http.headers.set('retry-after', RETRY_AFTER_SECONDS);
        },
      };
    },
  };
}
