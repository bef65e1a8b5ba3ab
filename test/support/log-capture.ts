import { Writable } from 'node:stream';

/** A pino destination that keeps every line it is given, parsed, for suites that count log lines. */
export class LogCapture extends Writable {
  readonly lines: Record<string, unknown>[] = [];

  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const text of chunk.toString('utf8').split('\n')) if (text.trim()) this.lines.push(JSON.parse(text) as Record<string, unknown>);
    done();
  }

  clear(): void {
    this.lines.length = 0;
  }

  /** pino levels: 50 = error, 40 = warn, 30 = info. */
  atLeast(level: number): Record<string, unknown>[] {
    return this.lines.filter((line) => (line.level as number) >= level);
  }

  /** The access-log lines (one per request). */
  requests(): Record<string, unknown>[] {
    return this.lines.filter((line) => line.msg === 'request');
  }
}
