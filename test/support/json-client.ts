// A tiny fetch-based JSON client for tests against a real server (global fetch, undici's defaults).

export interface JsonResponse {
  status: number;
  /** Parsed JSON, or the raw text when the body is not JSON (undefined when empty). */
  body: any;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  /** Overrides the client's key; null sends no Authorization header. */
  key?: string | null;
  headers?: Record<string, string>;
}

export interface JsonClient {
  readonly url: string;
  request(method: string, path: string, options?: RequestOptions): Promise<JsonResponse>;
  get(path: string, options?: RequestOptions): Promise<JsonResponse>;
  post(path: string, body?: unknown, options?: RequestOptions): Promise<JsonResponse>;
  put(path: string, body?: unknown, options?: RequestOptions): Promise<JsonResponse>;
}

export function createJsonClient(url: string, key: string | null): JsonClient {
  async function request(method: string, path: string, options: RequestOptions = {}): Promise<JsonResponse> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const apiKey = options.key === undefined ? key : options.key;
    if (apiKey !== null) headers['authorization'] ??= `App ${apiKey}`;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${url}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await response.text();
    let body: unknown = text === '' ? undefined : text;
    try { if (text !== '') body = JSON.parse(text); } catch { /* not JSON */ }
    return { status: response.status, body, text, headers: response.headers };
  }
  return {
    url,
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, body, options) => request('POST', path, { ...options, body }),
    put: (path, body, options) => request('PUT', path, { ...options, body }),
  };
}

/** Asserts-free helper: the response or a thrown error with its status and body, for setup steps. */
export function expectOk(response: JsonResponse, what: string): JsonResponse {
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${response.text}`);
  return response;
}

/** Creates an application and an SMS/voice template over HTTP; returns their ids. */
export async function createAppAndTemplate(client: JsonClient, configuration: Record<string, unknown>, template: Record<string, unknown> = {}) {
  const app = expectOk(await client.post('/2fa/2/applications', { name: 'e2e app', configuration }), 'create application');
  const applicationId = app.body.applicationId as string;
  const message = expectOk(await client.post(`/2fa/2/applications/${applicationId}/messages`, {
    pinType: 'NUMERIC', pinLength: 6, messageText: 'Your code is {{pin}}', senderId: 'Acme', ...template,
  }), 'create message template');
  return { applicationId, messageId: message.body.messageId as string };
}

/**
 * Waits until the log:// inbox holds a message for `pinId` and returns its text (and html, subject),
 * newest first: delivery is asynchronous (outbox worker).
 */
export async function waitForInboxMessage(client: JsonClient, to: string, pinId: string, options: { count?: number; timeoutMs?: number } = {}) {
  const wanted = options.count ?? 1;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const inbox = expectOk(await client.get(`/api/v1/inbox?to=${encodeURIComponent(to)}&limit=1000`), 'inbox');
    const messages = (inbox.body.messages as { pinId: string; text?: string; html?: string; subject?: string }[]).filter((m) => m.pinId === pinId);
    if (messages.length >= wanted) return { messages, raw: inbox.text };
    if (Date.now() > deadline) throw new Error(`no inbox message for PIN ${pinId} to ${to} within the time limit`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The PIN of a delivered message: what follows "code is" (the templates these tests use say so). */
export function pinFromText(text: string | undefined): string {
  const match = /code is ([0-9A-Z]+)/.exec(text ?? '');
  if (!match?.[1]) throw new Error(`no PIN in message text: ${String(text)}`);
  return match[1];
}

export async function deliveredPin(client: JsonClient, to: string, pinId: string): Promise<string> {
  const { messages } = await waitForInboxMessage(client, to, pinId);
  return pinFromText(messages[0]?.text);
}
