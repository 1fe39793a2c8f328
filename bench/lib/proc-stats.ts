// CPU time and memory of another process, read from /proc (Linux): utime+stime for CPU per request,
// VmHWM (peak resident set) reset through clear_refs so each scenario reports its own peak.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

let clockTicks: number | undefined;

/** Clock ticks per second of /proc/<pid>/stat times (almost always 100). */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** User + system CPU time of the process so far, in milliseconds. */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / ticksPerSecond();
}

function statusKb(pid: number, field: string): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : 0;
}

/** Peak resident set size since start or since the last resetPeakRss, in MB. */
export function peakRssMb(pid: number): number {
  return statusKb(pid, 'VmHWM') / 1024;
}

export function rssMb(pid: number): number {
  return statusKb(pid, 'VmRSS') / 1024;
}

/** Resets VmHWM to the current RSS (Linux 4.0+); false where the kernel refuses it. */
export function resetPeakRss(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The 1-, 5- and 15-minute load averages. */
export function loadAverage(): [number, number, number] {
  const [a = 0, b = 0, c = 0] = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  return [a, b, c];
}

/**
 * Pressure stall information (Linux PSI): the share of the last 60 s in which some task waited for a
 * CPU, or for I/O. Other work on the machine shows here even when the load average looks harmless.
 */
export function pressure(): { cpu: number | null; io: number | null } {
  const read = (kind: string): number | null => {
    try {
      const match = /some avg10=[\d.]+ avg60=([\d.]+)/.exec(fs.readFileSync(`/proc/pressure/${kind}`, 'utf8'));
      return match ? Number(match[1]) : null;
    } catch {
      return null;
    }
  };
  return { cpu: read('cpu'), io: read('io') };
}
