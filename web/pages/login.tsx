/**
 * Signing in: the credentials are checked against the node (`/users/$current`) and kept only
 * for this tab.
 */
import { useState } from 'preact/hooks';
import { Api, ApiError } from '../lib/api.js';
import type { Credentials } from '../lib/session.js';
import { describeError, Field } from '../components/ui.js';

export function Login({ onSignIn }: { onSignIn: (credentials: Credentials) => void }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const credentials = { login, password };
    try {
      await new Api(credentials, location.origin).json('/users/$current');
      onSignIn(credentials);
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 401 ? 'Wrong login or password.' : describeError(caught));
      setBusy(false);
    }
  };
  return (
    <div class="login">
      <h1>svcdb console</h1>
      <form onSubmit={(event) => void submit(event)}>
        <Field label="Login"><input name="login" autocomplete="username" required value={login} onInput={(event) => setLogin(event.currentTarget.value)} /></Field>
        <Field label="Password"><input name="password" type="password" autocomplete="current-password" value={password} onInput={(event) => setPassword(event.currentTarget.value)} /></Field>
        <button type="submit" disabled={busy}>Sign in</button>
        {error ? <p class="error" role="alert">{error}</p> : null}
      </form>
    </div>
  );
}
