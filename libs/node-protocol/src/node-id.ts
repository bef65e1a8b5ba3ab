import { z } from 'zod';

/** Node ids name a process; kept printable and short because they show up in GraphQL and logs. */
export const NODE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The one node-id rule of every body that names a node (the control plane checks it, the SDK checks its own id with it). */
export const nodeIdSchema = z.string().regex(NODE_ID_PATTERN, 'must be 1-128 characters of letters, digits, ".", "_", ":" or "-"');
