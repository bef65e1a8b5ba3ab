import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: the unit of utime and stime in /proc/<pid>/stat on Linux. */
const CLOCK_TICKS = 100;

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux; 0 elsewhere or once it
 * has exited), with its descendants' when asked (a server started through npm or a shell). Per
 * answered request it survives a loaded machine better than req/s: a server starved of CPU answers
 * fewer requests but spends about the same CPU on each.
 */
export function processCpuSeconds(pid: number | undefined, options: { descendants?: boolean } = {}): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // utime and stime are fields 14 and 15 of stat(5): index 11 and 12 after the command name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let seconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    if (options.descendants) {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean)) {
          seconds += processCpuSeconds(Number(child), options);
        }
      }
    }
    return seconds;
  } catch {
    return 0;
  }
}
