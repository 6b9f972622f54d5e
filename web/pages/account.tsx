/** The signed-in user's own account: who they are, their groups, and a new password. */
import { useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { ActionButton, Field } from '../components/ui.js';

export interface CurrentUser {
  loginName: string;
  fullName: string;
  groups: string[];
}

export function AccountPage({ api, user, passwordChanged }: { api: Api; user: CurrentUser | undefined; passwordChanged: (password: string) => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = async () => {
    if (next === '') throw new Error('The new password is empty.');
    await api.send('POST', `/users/${encodeURIComponent(api.login)}/command/change-password`, { currentPassword: current, newPassword: next });
    passwordChanged(next);
    setCurrent('');
    setNext('');
  };
  return (
    <section>
      <h1>Account</h1>
      <div class="panel">
        <dl class="facts">
          <dt>Login</dt><dd data-name="login">{api.login}</dd>
          <dt>Name</dt><dd>{user?.fullName ?? ''}</dd>
          <dt>Groups</dt><dd data-name="groups">{user === undefined ? '' : user.groups.length === 0 ? '(none)' : user.groups.join(', ')}</dd>
        </dl>
      </div>
      <form class="panel" name="change-password" onSubmit={(event) => event.preventDefault()}>
        <h2>Change password</h2>
        <Field label="Current password"><input name="current-password" type="password" autocomplete="current-password" value={current} onInput={(event) => setCurrent(event.currentTarget.value)} /></Field>
        <Field label="New password"><input name="new-password" type="password" autocomplete="new-password" value={next} onInput={(event) => setNext(event.currentTarget.value)} /></Field>
        <ActionButton name="change-password" label="Change password" done="Password changed." action={change} />
      </form>
    </section>
  );
}
