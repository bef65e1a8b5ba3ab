import {
  ackBodySchema,
  cardSignaturesBodySchema,
  heartbeatBodySchema,
  registerNodeBodySchema,
  type AckBody,
  type CardSignaturesBody,
  type HeartbeatBody,
  type RegisterNodeBody,
} from '@cp/node-protocol';
import { parseNodeBody } from '../../node-auth/parse-node-body';

export const parseRegister = (body: unknown): RegisterNodeBody => parseNodeBody(registerNodeBodySchema, body, 'register body');
export const parseHeartbeat = (body: unknown): HeartbeatBody => parseNodeBody(heartbeatBodySchema, body, 'heartbeat body');
export const parseAck = (body: unknown): AckBody => parseNodeBody(ackBodySchema, body, 'ack body');
export const parseCardSignatures = (body: unknown): CardSignaturesBody =>
  parseNodeBody(cardSignaturesBodySchema, body, 'card-signatures body');
