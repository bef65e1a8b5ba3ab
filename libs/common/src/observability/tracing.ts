/**
 * OpenTelemetry traces (ADR 0141). Off unless an OTLP endpoint is configured: then the official
 * SDK's TracerProvider exports in batches over OTLP/HTTP, the AsyncLocalStorage context manager
 * carries the active span across awaits and the W3C trace-context propagator reads and writes
 * `traceparent`. While off, `tracingOn()` is false and every helper here returns at once (no span,
 * no context switch, no allocation on the request path).
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type { AppConfig } from '../config/config';

export { SpanKind };
export type { Span, Context };

const TRACER = 'capability-control-plane';
let on = false;
let provider: TracerProvider | undefined;

/** Whether spans are recorded in this process (set once at boot, or by a test's in-memory exporter). */
export function tracingOn(): boolean {
  return on;
}

/** Whether the configuration asks for traces (an OTLP endpoint, not disabled). */
export function tracingConfigured(config: AppConfig): boolean {
  return !config.OTEL_SDK_DISABLED && (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_ENDPOINT) !== undefined;
}

function sampler(config: AppConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.OTEL_TRACES_SAMPLER_ARG ?? 1);
  switch (config.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** `k=v,k2=v2` → headers (values percent-decoded, as the OTel spec says). */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq).trim();
    try {
      headers[key] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      headers[key] = pair.slice(eq + 1).trim();
    }
  }
  return headers;
}

/** Registers the SDK globally with these span processors (and the W3C propagator, ALS context). */
export function installTracerProvider(serviceName: string, processors: SpanProcessor[], chosen?: Sampler): TracerProvider {
  const next = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    sampler: chosen ?? new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: processors,
  });
  trace.disable();
  context.disable();
  propagation.disable();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(next);
  provider = next;
  on = true;
  return next;
}

/** Back to no tracing (tests; shutdown). */
export async function uninstallTracerProvider(): Promise<void> {
  const was = provider;
  provider = undefined;
  on = false;
  trace.disable();
  context.disable();
  propagation.disable();
  await was?.shutdown().catch(() => undefined);
}

/**
 * At boot, before the app is built: the OTLP exporter when configured, nothing otherwise.
 * Returns a function that flushes and stops it.
 */
export function startTracing(config: AppConfig, app: string): () => Promise<void> {
  if (!tracingConfigured(config)) return () => Promise.resolve();
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const url = config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`;
  const exporter = new OTLPTraceExporter({ url, headers: parseOtlpHeaders(config.OTEL_EXPORTER_OTLP_HEADERS) });
  installTracerProvider(config.OTEL_SERVICE_NAME ?? app, [new BatchSpanProcessor({ exporter })], sampler(config));
  return uninstallTracerProvider;
}

const tracer = () => trace.getTracer(TRACER);

const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** The context a caller's `traceparent` (and `tracestate`) header names; the root context when none or tracing is off. */
export function contextFromHeaders(headers: Record<string, string | string[] | undefined>): Context {
  if (!on) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
}

/** The context a bare `traceparent` value names (e.g. carried in a Redis message). */
export function contextFromTraceparent(traceparent: string | undefined): Context {
  if (!on || !traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent }, headerGetter);
}

/** Adds `traceparent` (and `tracestate`) of the active span to outgoing headers; no-op when off. */
export function injectTraceHeaders(headers: Record<string, string>): Record<string, string> {
  if (on) propagation.inject(context.active(), headers);
  return headers;
}

/** The active span's `traceparent`, or undefined (off, or no span). */
export function currentTraceparent(): string | undefined {
  if (!on) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The active span's trace id (32 hex), or null: what audit events and logs record. */
export function currentTraceId(): string | null {
  if (!on) return null;
  const ctx = trace.getSpanContext(context.active());
  return ctx && trace.isSpanContextValid(ctx) ? ctx.traceId : null;
}

/** The active span (to add attributes to), or undefined when off. */
export function activeSpan(): Span | undefined {
  return on ? trace.getActiveSpan() : undefined;
}

/**
 * Runs `work` inside a new span (child of `parent`, else of the active span); ends it when the
 * work settles, marking errors. When tracing is off it just runs `work`.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => T,
  options: { kind?: SpanKind; parent?: Context } = {},
): T {
  if (!on) return work(undefined);
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, parent);
  const ctx = trace.setSpan(parent, span);
  const fail = (error: unknown) => {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message?.slice(0, 200) });
    span.end();
  };
  let result: T;
  try {
    result = context.with(ctx, () => work(span));
  } catch (error) {
    fail(error);
    throw error;
  }
  if (result instanceof Promise) {
    return result.then(
      (value: unknown) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        fail(error);
        throw error;
      },
    ) as T;
  }
  span.end();
  return result;
}

/** Marks a span as failed with a short, token-free reason (an error code, never a message that may echo input). */
export function markSpanError(span: Span | undefined, code: string): void {
  span?.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

/** A span opened now and ended by the caller (for work whose end is not a promise: observables, streams). */
export interface OpenSpan {
  readonly span: Span;
  readonly traceId: string;
  /** Runs `work` with this span active (what it starts, awaits and calls inherits it). */
  run<T>(work: () => T): T;
  /** Ends the span; with a code, marked failed. */
  end(errorCode?: string): void;
}

/** undefined while tracing is off. */
export function openSpan(name: string, attributes: Attributes, options: { kind?: SpanKind; parent?: Context } = {}): OpenSpan | undefined {
  if (!on) return undefined;
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, parent);
  const ctx = trace.setSpan(parent, span);
  return {
    span,
    traceId: span.spanContext().traceId,
    run: (work) => context.with(ctx, work),
    end: (errorCode) => {
      if (errorCode) span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode });
      span.end();
    },
  };
}
