/**
 * Credentials in tests: HTTP Basic headers, and fetch with the default administrator's
 * credentials for tests whose subject is not security itself.
 */
export function basicAuth(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

export const ADMIN_AUTH = basicAuth('admin', 'changeit');
export const OPS_AUTH = basicAuth('ops', 'changeit');

/** `fetch` as the default admin, unless the request names its own Authorization header. */
export function adminFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has('authorization')) headers.set('authorization', ADMIN_AUTH);
  return fetch(url, { ...init, headers });
}

export interface TestUser {
  loginName: string;
  password: string;
  groups?: string[];
  fullName?: string;
}

/** Creates a user through the users API as the default admin; returns the user's Basic header. */
export async function createUser(url: string, user: TestUser): Promise<string> {
  const response = await adminFetch(`${url}/users/`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ groups: [], ...user }),
  });
  if (response.status !== 201) throw new Error(`creating ${user.loginName}: ${response.status} ${await response.text()}`);
  return basicAuth(user.loginName, user.password);
}
