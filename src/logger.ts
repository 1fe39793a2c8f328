// The one logger factory. JSON lines (pino); anything that could carry a PIN, a key or a full
// destination is redacted or never passed in: request URLs are logged without their query string
// (verification status puts the destination there) and headers are not logged at all.
import { pino, type Logger, type DestinationStream } from 'pino';
import type { LogLevel } from './config.js';

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  // stdout is written asynchronously: lines logged while a write is under way go out together in
  // the next one, instead of one blocking write per line on the event loop. pino flushes what is
  // left when the process exits.
  return pino({
    level,
    base: { service: 'twofa' },
    redact: { paths: ['pin', '*.pin', 'key', '*.key', 'secret', '*.secret', 'authorization', '*.authorization', 'req.headers'], censor: '[redacted]' },
    serializers: {
      req: (req: { id?: string; method?: string; url?: string }) => ({ id: req.id, method: req.method, path: (req.url ?? '').split('?')[0] }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
  }, destination ?? pino.destination({ dest: 1, sync: false }));
}
