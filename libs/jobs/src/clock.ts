/** The clock lives in @cp/common (every app uses it); re-exported here for existing imports. */
export { Clock, SystemClock, ClockModule } from '@cp/common';
