/**
 * The signed-in user's credentials, for this browser tab only: kept in memory and in the tab's
 * session storage (so a reload keeps the user signed in), never in local storage, which every
 * tab and every later visit would share.
 */

/** The part of the Web Storage interface used here (sessionStorage in the browser). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface Credentials {
  login: string;
  password: string;
}

const KEY = 'svcdb.console.credentials';

/** `Basic` credentials as the Authorization header carries them, UTF-8 encoded. */
export function basicAuthorization({ login, password }: Credentials): string {
  const bytes = new TextEncoder().encode(`${login}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

export class Session {
  private credentials: Credentials | undefined;

  constructor(private readonly store: KeyValueStore | undefined) {
    this.credentials = this.read();
  }

  current(): Credentials | undefined {
    return this.credentials;
  }

  signIn(credentials: Credentials): void {
    this.credentials = credentials;
    this.store?.setItem(KEY, JSON.stringify(credentials));
  }

  signOut(): void {
    this.credentials = undefined;
    this.store?.removeItem(KEY);
  }

  private read(): Credentials | undefined {
    const text = this.store?.getItem(KEY);
    if (!text) return undefined;
    try {
      const value = JSON.parse(text) as Partial<Credentials>;
      if (typeof value.login === 'string' && typeof value.password === 'string') return { login: value.login, password: value.password };
    } catch {
      // A damaged entry is as good as none: the user signs in again.
    }
    this.store?.removeItem(KEY);
    return undefined;
  }
}
