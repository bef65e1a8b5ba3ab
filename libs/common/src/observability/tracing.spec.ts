import { recordSpans, type RecordedSpans } from '../testing';
import {
  contextFromHeaders,
  currentTraceId,
  currentTraceparent,
  injectTraceHeaders,
  inSpan,
  parseOtlpHeaders,
  tracingConfigured,
  tracingOn,
} from './tracing';
import { loadConfig } from '../config/config';

const CALLER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('tracing helpers', () => {
  it('is off unless an OTLP endpoint is configured, and off when OTEL_SDK_DISABLED', () => {
    expect(tracingConfigured(loadConfig({}))).toBe(false);
    expect(tracingConfigured(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }))).toBe(true);
    expect(tracingConfigured(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }))).toBe(true);
    expect(tracingConfigured(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }))).toBe(false);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'file:///etc/passwd' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
  });

  it('parses OTEL_EXPORTER_OTLP_HEADERS, percent-decoding values and skipping malformed pairs', () => {
    expect(parseOtlpHeaders('api-key=a%20b,x=1,=bad,novalue')).toEqual({ 'api-key': 'a b', x: '1' });
    expect(parseOtlpHeaders(undefined)).toEqual({});
  });

  it('while off: runs the work without spans and adds no headers', async () => {
    expect(tracingOn()).toBe(false);
    expect(await inSpan('x', {}, (span) => Promise.resolve(span))).toBeUndefined();
    expect(injectTraceHeaders({})).toEqual({});
    expect(currentTraceId()).toBeNull();
  });

  describe('while on (in-memory exporter)', () => {
    let spans: RecordedSpans;
    beforeAll(() => {
      spans = recordSpans('unit');
    });
    afterAll(() => spans.stop());

    it('continues a caller traceparent across awaits and nested spans, and propagates it', async () => {
      const parent = contextFromHeaders({ traceparent: CALLER });
      const seen = await inSpan(
        'outer',
        { 'a.b': 1 },
        async () => {
          await new Promise((r) => setTimeout(r, 1));
          return inSpan('inner', {}, async () => {
            await Promise.resolve();
            return { id: currentTraceId(), header: injectTraceHeaders({}).traceparent, tp: currentTraceparent() };
          });
        },
        { parent },
      );
      expect(seen.id).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(seen.header).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
      expect(seen.tp).toBe(seen.header);
      const [inner, outer] = spans.trace('0af7651916cd43dd8448eb211c80319c');
      expect(outer.name).toBe('outer');
      expect(outer.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    });

    it('ignores a malformed traceparent (a new trace starts) and marks a failed span', async () => {
      for (const hostile of ['zz', '00-' + '0'.repeat(32) + '-' + '0'.repeat(16) + '-01', 'x'.repeat(10_000)]) {
        const id = inSpan('fresh', {}, () => currentTraceId(), { parent: contextFromHeaders({ traceparent: hostile }) });
        expect(id).toMatch(/^[0-9a-f]{32}$/);
        expect(id).not.toBe('0'.repeat(32));
      }
      await expect(inSpan('boom', {}, () => Promise.reject(new Error('nope')))).rejects.toThrow('nope');
      expect(spans.spans().find((s) => s.name === 'boom')?.status.code).toBe(2);
    });
  });
});
