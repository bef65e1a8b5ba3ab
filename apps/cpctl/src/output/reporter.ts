/**
 * Where and how cpctl talks: human text on stdout (coloured only on a terminal), problems on
 * stderr, a progress spinner on stderr while waiting on the network (terminal only), or one JSON
 * document on stdout with --json. Commands never write to the streams directly.
 */
import pc from 'picocolors';
import type { Colors } from 'picocolors/types';

export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface Io {
  stdout: OutStream;
  stderr: OutStream;
  env: Record<string, string | undefined>;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class Reporter {
  readonly c: Colors;
  /** Colour is on: decorations such as ✓/✗ marks are added only then, plain text stays greppable. */
  readonly decorated: boolean;
  private readonly interactive: boolean;

  constructor(
    private readonly io: Io,
    readonly json: boolean,
  ) {
    // NO_COLOR / FORCE_COLOR follow the usual conventions (no-color.org, force-color.org).
    const forced = io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0';
    const colour = !json && io.env.NO_COLOR === undefined && (forced || io.stdout.isTTY === true);
    this.c = pc.createColors(colour);
    this.decorated = colour;
    this.interactive = !json && io.stderr.isTTY === true;
  }

  /** A line of human output (ignored in --json mode, where only `result` writes). */
  line(text = ''): void {
    if (!this.json) this.io.stdout.write(`${text}\n`);
  }

  /** `✓ `/`✗ `/`! ` prefixes on a terminal, nothing in plain output. */
  mark(kind: 'ok' | 'bad' | 'warn'): string {
    if (!this.decorated) return '';
    return kind === 'ok' ? `${this.c.green('✓')} ` : kind === 'bad' ? `${this.c.red('✗')} ` : `${this.c.yellow('!')} `;
  }

  /** A problem line on stderr (human mode). */
  problem(text: string): void {
    if (!this.json) this.io.stderr.write(`${text}\n`);
  }

  /** The machine-readable result: exactly one JSON document on stdout. */
  result(doc: object): void {
    if (this.json) this.io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  }

  /** Runs `work` with a spinner on a terminal; silent otherwise (logs and CI stay clean). */
  async progress<T>(label: string, work: () => Promise<T>): Promise<T> {
    if (!this.interactive) return work();
    let frame = 0;
    const draw = () => this.io.stderr.write(`\r${this.c.cyan(FRAMES[frame++ % FRAMES.length])} ${label}`);
    draw();
    const timer = setInterval(draw, 80);
    try {
      return await work();
    } finally {
      clearInterval(timer);
      this.io.stderr.write(`\r\x1b[2K`);
    }
  }
}
