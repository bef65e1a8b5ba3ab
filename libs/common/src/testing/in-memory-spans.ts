import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { installTracerProvider, uninstallTracerProvider } from '../observability/tracing';

export interface RecordedSpans {
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** Spans of one trace. */
  trace(traceId: string): ReadableSpan[];
  reset(): void;
  stop(): Promise<void>;
}

/** Tracing on in this process with an in-memory exporter (spans are recorded when they end). */
export function recordSpans(serviceName = 'test'): RecordedSpans {
  const exporter = new InMemorySpanExporter();
  installTracerProvider(serviceName, [new SimpleSpanProcessor({ exporter })]);
  return {
    spans: () => exporter.getFinishedSpans(),
    trace: (traceId) => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId),
    reset: () => exporter.reset(),
    stop: () => uninstallTracerProvider(),
  };
}
