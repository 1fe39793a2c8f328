// SIP messages (RFC 3261 7): parsing and serializing requests and responses, header lookup with
// the compact forms (`v` for Via, `i` for Call-ID, ...), and the framing of a TCP stream by
// Content-Length. Just enough of the grammar for a user agent client: header values stay text and
// the few parts we need (tags, branch, URIs in name-addr) are read by small helpers.

export interface SipRequest {
  kind: 'request';
  method: string;
  uri: string;
  headers: SipHeaders;
  body: Buffer;
}

export interface SipResponse {
  kind: 'response';
  status: number;
  reason: string;
  headers: SipHeaders;
  body: Buffer;
}

export type SipMessage = SipRequest | SipResponse;

const COMPACT: Record<string, string> = {
  v: 'via',
  f: 'from',
  t: 'to',
  i: 'call-id',
  m: 'contact',
  l: 'content-length',
  c: 'content-type',
  k: 'supported',
  e: 'content-encoding',
  s: 'subject',
  o: 'event',
  r: 'refer-to',
  u: 'allow-events',
};

// Headers whose comma-separated values are separate entries (RFC 3261 7.3.1); for the others
// (From, To, WWW-Authenticate, ...) a comma is part of the value.
const LIST_HEADERS = new Set(['via', 'route', 'record-route', 'contact']);

/** Header fields in order; names compared case-insensitively, compact forms expanded. */
export class SipHeaders {
  private readonly fields: Array<[string, string]> = [];

  static canonical(name: string): string {
    const lower = name.trim().toLowerCase();
    return COMPACT[lower] ?? lower;
  }

  append(name: string, value: string): this {
    this.fields.push([name, value]);
    return this;
  }

  set(name: string, value: string): this {
    this.delete(name);
    return this.append(name, value);
  }

  delete(name: string): void {
    const key = SipHeaders.canonical(name);
    for (let i = this.fields.length - 1; i >= 0; i--) {
      if (SipHeaders.canonical((this.fields[i] as [string, string])[0]) === key) this.fields.splice(i, 1);
    }
  }

  /** The first value (for list headers: the first entry). */
  get(name: string): string | undefined {
    return this.getAll(name)[0];
  }

  /** Every value, list headers split at their top-level commas. */
  getAll(name: string): string[] {
    const key = SipHeaders.canonical(name);
    const values: string[] = [];
    for (const [field, value] of this.fields) {
      if (SipHeaders.canonical(field) !== key) continue;
      if (LIST_HEADERS.has(key)) values.push(...splitList(value));
      else values.push(value.trim());
    }
    return values;
  }

  entries(): ReadonlyArray<readonly [string, string]> {
    return this.fields;
  }
}

/** Splits at commas outside quotes and angle brackets. */
export function splitList(value: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  let angle = 0;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (ch === '"' && value[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && ch === '<') angle++;
    else if (!quoted && ch === '>') angle = Math.max(0, angle - 1);
    if (ch === ',' && !quoted && angle === 0) {
      if (current.trim() !== '') parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '') parts.push(current.trim());
  return parts;
}

export class SipParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SipParseError';
  }
}

const MAX_HEADER_BYTES = 64 * 1024;
const MAX_BODY_BYTES = 64 * 1024;

/** Parses one complete message (a UDP datagram, or one framed from a TCP stream). */
export function parseSipMessage(data: Buffer): SipMessage {
  const end = data.indexOf('\r\n\r\n');
  const headEnd = end === -1 ? data.length : end;
  const head = data.subarray(0, headEnd).toString('utf8');
  let body = end === -1 ? Buffer.alloc(0) : data.subarray(end + 4);
  // Header folding (a line starting with whitespace continues the previous one) is unfolded first.
  const lines = head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
  const startLine = lines.shift() ?? '';
  const headers = new SipHeaders();
  for (const line of lines) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new SipParseError(`malformed header line "${line.slice(0, 40)}"`);
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const length = headers.get('content-length');
  if (length !== undefined) {
    const n = Number(length);
    if (!Number.isInteger(n) || n < 0) throw new SipParseError('invalid Content-Length');
    if (n > body.length) throw new SipParseError('body shorter than Content-Length');
    body = body.subarray(0, n);
  }

  const response = /^SIP\/2\.0\s+(\d{3})\s*(.*)$/i.exec(startLine);
  if (response) return { kind: 'response', status: Number(response[1]), reason: response[2] ?? '', headers, body };
  const request = /^([A-Za-z]+)\s+(\S+)\s+SIP\/2\.0$/i.exec(startLine);
  if (request) return { kind: 'request', method: (request[1] as string).toUpperCase(), uri: request[2] as string, headers, body };
  throw new SipParseError(`not a SIP start line: "${startLine.slice(0, 60)}"`);
}

/** The message on the wire, with Content-Length computed from the body. */
export function serializeSipMessage(message: SipMessage): Buffer {
  const start = message.kind === 'request' ? `${message.method} ${message.uri} SIP/2.0` : `SIP/2.0 ${message.status} ${message.reason}`;
  const lines = [start];
  for (const [name, value] of message.headers.entries()) {
    if (SipHeaders.canonical(name) === 'content-length') continue;
    if (/[\r\n]/.test(value) || /[\r\n:]/.test(name)) throw new SipParseError(`header ${name} holds a line break`);
    lines.push(`${name}: ${value}`);
  }
  lines.push(`Content-Length: ${message.body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), message.body]);
}

/** Frames the messages of a TCP stream (RFC 3261 18.3: Content-Length is mandatory there). */
export class SipStreamParser {
  private buffer = Buffer.alloc(0);

  /** The complete messages now available; throws on a stream that cannot be framed. */
  push(chunk: Buffer): SipMessage[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const messages: SipMessage[] = [];
    for (;;) {
      // Keep-alive CRLFs (RFC 5626) between messages.
      let skip = 0;
      while (skip + 1 < this.buffer.length && this.buffer[skip] === 0x0d && this.buffer[skip + 1] === 0x0a) skip += 2;
      if (skip > 0) this.buffer = this.buffer.subarray(skip);
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end === -1) {
        if (this.buffer.length > MAX_HEADER_BYTES) throw new SipParseError('header section too long');
        return messages;
      }
      const head = this.buffer.subarray(0, end).toString('utf8');
      const lengthText = /^(?:content-length|l)[ \t]*:[ \t]*(\d+)[ \t]*$/im.exec(head)?.[1];
      const length = lengthText === undefined ? 0 : Number(lengthText);
      if (length > MAX_BODY_BYTES) throw new SipParseError('body too long');
      const total = end + 4 + length;
      if (this.buffer.length < total) return messages;
      messages.push(parseSipMessage(this.buffer.subarray(0, total)));
      this.buffer = this.buffer.subarray(total);
    }
  }
}

/** A header parameter (`;tag=abc`, `;branch=z9hG4bK...`) outside the angle-bracketed URI. */
export function headerParam(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  const close = value.lastIndexOf('>');
  const params = close === -1 ? value.slice(value.indexOf(';') === -1 ? value.length : value.indexOf(';')) : value.slice(close + 1);
  for (const part of params.split(';')) {
    const [key, ...rest] = part.split('=');
    if (key !== undefined && key.trim().toLowerCase() === name.toLowerCase()) return rest.join('=').trim();
  }
  return undefined;
}

/** The URI of a name-addr (`"Ann" <sip:ann@host>;tag=1`) or addr-spec (`sip:ann@host`). */
export function headerUri(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const angle = /<([^>]*)>/.exec(value);
  if (angle) return angle[1];
  return value.split(';')[0]?.trim();
}

export interface SipUriHost {
  host: string;
  port: number | undefined;
  transport: string | undefined;
}

/** Host, port and transport parameter of a sip: URI. */
export function parseSipUri(uri: string): SipUriHost | undefined {
  const match = /^sips?:(?:[^@;>]*@)?(\[[^\]]+\]|[^:;?>]+)(?::(\d+))?([^?>]*)/i.exec(uri.trim());
  if (match === null) return undefined;
  const transport = /;transport=([^;?]+)/i.exec(match[3] ?? '')?.[1]?.toLowerCase();
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port: match[2] === undefined ? undefined : Number(match[2]), transport };
}
