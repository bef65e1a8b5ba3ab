export { recordSpans, type RecordedSpans } from './in-memory-spans';
// Benchmarks install the SDK with their own span processors.
export { installTracerProvider, uninstallTracerProvider } from '../observability/tracing';
