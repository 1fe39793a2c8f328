// WAL checkpoints off the event loop. SQLite copies the write-ahead log back into the database file
// (a checkpoint) from inside the commit that takes the log past 1,000 pages: on the event loop's
// thread, with its two fsyncs, so every request in flight would wait for it (BENCHMARKS.md gives
// the figures). Here a worker thread with its own connection runs
// passive checkpoints, which never block the writer, and this connection's automatic ones are off.
//
// A passive checkpoint copies the log as it was when it began. While requests keep writing, the log
// never ends up fully copied, and SQLite starts it over only when it is: under steady load it would
// grow for ever. So the worker repeats its pass until little is left (each copies what was written
// during the previous one), and when the log is long and at most `finishPages` pages are left, this
// connection copies them itself (a short checkpoint, kept short because it runs on the event loop),
// and its next commit starts the log over. The worker must never restart the log itself (a RESTART
// checkpoint): a transaction of this connection that read before the restart and writes after it
// fails with SQLITE_BUSY_SNAPSHOT, whatever the busy timeout, and the request answers 500.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

export interface CheckpointerOptions {
  /** How often the worker checkpoints. */
  intervalMs?: number;
  /** Log length (pages) from which this connection finishes a checkpoint so the log starts over. */
  restartPages?: number;
  /** Most pages left for this connection to copy when it finishes (it does so on the event loop). */
  finishPages?: number;
}

interface CheckpointReport {
  /** Pages in the log, and pages of it copied into the database, after the worker's checkpoint. */
  log?: number;
  checkpointed?: number;
  error?: string;
}

/** The worker: plain CommonJS run with `eval`, so it needs no file of its own (tsx and dist alike). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.file, { fileMustExist: true });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try {
    // Each pass copies what was written during the previous one: a few passes leave little behind.
    let { log, checkpointed } = checkpoint.get();
    for (let pass = 1; pass < 4 && log - checkpointed > workerData.finishPages; pass += 1) ({ log, checkpointed } = checkpoint.get());
    if (log > 0) parentPort.postMessage({ log, checkpointed });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly finishCheckpoint: BetterSqlite3.Statement;
  private stopped = false;

  constructor(private readonly connection: BetterSqlite3.Database, file: string, options: CheckpointerOptions = {}) {
    const restartPages = options.restartPages ?? 4000;
    const finishPages = options.finishPages ?? 64;
    this.finishCheckpoint = connection.prepare('PRAGMA wal_checkpoint(PASSIVE)');
    connection.pragma('wal_autocheckpoint = 0');
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, driverPath: createRequire(import.meta.url).resolve('better-sqlite3'), intervalMs: options.intervalMs ?? 50, finishPages },
    });
    // The worker alone never keeps the process alive.
    this.worker.unref();
    this.worker.on('message', (report: CheckpointReport) => {
      if (report.error !== undefined || report.log === undefined || report.checkpointed === undefined) return;
      if (report.log >= restartPages && report.log - report.checkpointed <= finishPages) this.finish();
    });
    // Without the worker, SQLite checkpoints on its own again (on this thread, as before).
    this.worker.on('error', () => this.fallBack());
    this.worker.on('exit', () => this.fallBack());
  }

  /** Stops the worker (before the connection closes, so that it is the last one and removes the log). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    // Waiting for it must keep the process alive, or a process with nothing else to do exits mid-close.
    this.worker.ref();
    this.worker.postMessage('stop');
    await exited;
  }

  private finish(retries = 3): void {
    // Inside a transaction of this connection SQLite refuses (the lock is held). The hot path's shared
    // transaction ends with the turn of the event loop (hot-path.ts): try again after it, then leave
    // it to the next report.
    if (this.connection.inTransaction) {
      if (retries > 0) setImmediate(() => this.finish(retries - 1));
      return;
    }
    try {
      this.finishCheckpoint.get();
    } catch {
      // SQLITE_BUSY or LOCKED: another connection is in the way; the next report retries.
    }
  }

  private fallBack(): void {
    if (this.stopped || !this.connection.open) return;
    this.stopped = true;
    this.connection.pragma('wal_autocheckpoint = 1000');
  }
}
