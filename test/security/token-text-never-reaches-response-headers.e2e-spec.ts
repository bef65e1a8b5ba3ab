/**
 * Issue 11 item 12: token text never reaches response headers, against a node serving every
 * capability in process (and the control plane's own surfaces). The suite is shared with the
 * gateway target (issue 28): see `./support/token-text-suite.ts`.
 */
import { tokenTextNeverReachesResponseHeaders } from './support/token-text-suite';

tokenTextNeverReachesResponseHeaders('in-process');
