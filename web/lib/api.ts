/**
 * Every call the console makes to the node: same origin only, with the signed-in user's Basic
 * credentials, so the API's own authentication and ACLs decide what the user may see and do.
 * Credentials go in the Authorization header and nowhere else: the browser's own credential
 * store and cookies are never used (`credentials: 'omit'`), so no other site can make a request
 * that carries them. `X-Requested-With` asks the node for a challenge the browser does not act
 * on, so a refusal shows in the console, not as the browser's login dialog.
 */
import { basicAuthorization, type Credentials } from './session.js';

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string | undefined, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  accept?: string;
  signal?: AbortSignal;
}

/** The error an unsuccessful reply stands for, with the node's code and message when it sent them. */
export async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; error?: unknown };
    if (typeof body.message === 'string') return new ApiError(response.status, typeof body.code === 'string' ? body.code : undefined, body.message);
  } catch {
    // Not a JSON error body: the status says what happened.
  }
  const reason = text.trim() || response.statusText || 'request failed';
  return new ApiError(response.status, undefined, `${response.status} ${reason}`);
}

/** `path` when it names something on this origin, as a path; refuses anything else. */
export function sameOriginPath(url: string, origin: string): string {
  const parsed = new URL(url, origin);
  if (parsed.origin !== origin) throw new ApiError(0, undefined, `refused to follow a link to another origin: ${url}`);
  return parsed.pathname + parsed.search;
}

export class Api {
  constructor(
    private readonly credentials: Credentials,
    private readonly origin: string,
    private readonly fetcher: Fetch = (input, init) => fetch(input, init),
  ) {}

  get login(): string {
    return this.credentials.login;
  }

  /** The reply to `path`; fails with an ApiError on any status outside 2xx. */
  async request(path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: basicAuthorization(this.credentials),
      'x-requested-with': 'XMLHttpRequest',
      accept: options.accept ?? 'application/json',
      ...options.headers,
    };
    const response = await this.fetcher(sameOriginPath(path, this.origin), {
      method: options.method ?? 'GET', headers, body: options.body, signal: options.signal,
      mode: 'same-origin', credentials: 'omit', cache: 'no-store', redirect: 'error',
    });
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  async json<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.request(path, options);
    const text = await response.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** A JSON body sent with `method`; the reply's JSON, if any. */
  send<T>(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
    return this.sendText<T>(method, path, body === undefined ? undefined : JSON.stringify(body), headers);
  }

  /** JSON text sent as it is (what a user typed keeps every digit); the reply's JSON, if any. */
  sendText<T>(method: string, path: string, text: string | undefined, headers: Record<string, string> = {}): Promise<T> {
    return this.json<T>(path, { method, body: text, headers: { 'content-type': 'application/json', ...headers } });
  }
}
