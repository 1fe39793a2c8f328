// The node's own copy of the audit chain heads it recorded: `<TWOFA_DATA_DIR>/audit-heads.json`, on
// the node's disk rather than in the database, so that someone who can change the database (the
// audit_heads table included, e.g. putting back an older head) cannot also change this copy.
// Replaced whole through a rename, so a crash leaves the old file or the new one.
import fs from 'node:fs';
import path from 'node:path';
import { formatAuditHead, parseAuditHead, type AuditHead } from '../domain/audit-head.js';

export const AUDIT_HEAD_FILE = 'audit-heads.json';

interface HeadFile {
  /** One token per account (domain/audit-head.ts). */
  heads: string[];
}

export function auditHeadFilePath(dataDir: string): string {
  return path.join(dataDir, AUDIT_HEAD_FILE);
}

/** The heads in the file; none when there is no file. Throws on a file that is not one of ours. */
export function readAuditHeadFile(file: string): AuditHead[] {
  if (!fs.existsSync(file)) return [];
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<HeadFile>;
  if (!Array.isArray(parsed.heads)) throw new Error(`${file} holds no "heads" list`);
  return parsed.heads.map((token) => {
    const head = typeof token === 'string' ? parseAuditHead(token) : null;
    if (head === null) throw new Error(`${file}: ${String(token).slice(0, 40)} is not an audit head`);
    return head;
  });
}

export function writeAuditHeadFile(file: string, heads: AuditHead[]): void {
  const body: HeadFile = { heads: [...heads].sort((a, b) => a.accountId.localeCompare(b.accountId)).map(formatAuditHead) };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
}
