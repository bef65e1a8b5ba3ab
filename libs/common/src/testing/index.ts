export { recordSpans, type RecordedSpans } from './in-memory-spans';
