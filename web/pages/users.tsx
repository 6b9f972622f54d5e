/** Users: create one, edit groups, reset a password, enable or disable, delete. Admins only (the API decides). */
import { useState } from 'preact/hooks';
import type { Api } from '../lib/api.js';
import { ActionButton, ConfirmButton, ErrorBanner, Field, Notice, useLoad } from '../components/ui.js';

interface User {
  loginName: string;
  fullName: string;
  groups: string[];
  disabled: boolean;
}

export function groupsOf(text: string): string[] {
  return text.split(',').map((group) => group.trim()).filter((group) => group !== '');
}

function userPath(login: string, suffix = ''): string {
  return `/users/${encodeURIComponent(login)}${suffix}`;
}

function UserRow({ api, user, changed }: { api: Api; user: User; changed: () => void }) {
  const [groups, setGroups] = useState(user.groups.join(', '));
  const [password, setPassword] = useState('');
  const toggle = user.disabled ? 'enable' : 'disable';
  return (
    <tr data-name={`user-${user.loginName}`}>
      <td>{user.loginName}</td>
      <td>{user.fullName}</td>
      <td>
        <span class="row">
          <input name="groups" aria-label={`groups of ${user.loginName}`} value={groups} onInput={(event) => setGroups(event.currentTarget.value)} />
          <ActionButton name="save-groups" label="Save" done="Saved." action={async () => { await api.send('PUT', userPath(user.loginName), { fullName: user.fullName, groups: groupsOf(groups) }); changed(); }} />
        </span>
      </td>
      <td>{user.disabled ? 'disabled' : 'enabled'}</td>
      <td><div class="buttons">
        <ActionButton name={toggle} label={toggle === 'enable' ? 'Enable' : 'Disable'} action={async () => { await api.send('POST', userPath(user.loginName, `/command/${toggle}`), undefined); changed(); }} />
        <span class="row">
          <input name="new-password" type="password" autocomplete="new-password" placeholder="new password" aria-label={`new password of ${user.loginName}`} value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
          <ActionButton name="reset-password" label="Reset password" done="Password reset." action={async () => { await api.send('POST', userPath(user.loginName, '/command/reset-password'), { newPassword: password }); setPassword(''); }} />
        </span>
        <ConfirmButton name="delete-user" label="Delete" confirmLabel="Yes, delete the user" question={`Delete the user '${user.loginName}'?`} onConfirm={async () => { await api.request(userPath(user.loginName), { method: 'DELETE' }); changed(); }} />
      </div></td>
    </tr>
  );
}

function CreateUser({ api, created }: { api: Api; created: () => void }) {
  const empty = { loginName: '', fullName: '', groups: '', password: '' };
  const [input, setInput] = useState(empty);
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState<string>();
  const set = (name: keyof typeof empty) => (event: Event) => setInput({ ...input, [name]: (event.currentTarget as HTMLInputElement).value });
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setMessage(undefined);
    try {
      await api.send('POST', '/users', { loginName: input.loginName, fullName: input.fullName, groups: groupsOf(input.groups), password: input.password });
      setMessage(`User ${input.loginName} created.`);
      setInput(empty);
      created();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <form name="create-user" class="grid" onSubmit={(event) => void submit(event)}>
      <h2>New user</h2>
      <Field label="Login"><input name="loginName" required value={input.loginName} onInput={set('loginName')} /></Field>
      <Field label="Full name"><input name="fullName" value={input.fullName} onInput={set('fullName')} /></Field>
      <Field label="Groups (comma separated)"><input name="groups" value={input.groups} onInput={set('groups')} placeholder="$ops" /></Field>
      <Field label="Password"><input name="password" type="password" autocomplete="new-password" required value={input.password} onInput={set('password')} /></Field>
      <button type="submit">Create user</button>
      <ErrorBanner error={error} />
      <Notice text={message} />
    </form>
  );
}

export function UsersPage({ api }: { api: Api }) {
  const users = useLoad((signal) => api.json<{ data: User[] }>('/users', { signal }), [api]);
  return (
    <section>
      <h1>Users</h1>
      <ErrorBanner error={users.error} />
      <table class="users">
        <thead><tr><th>Login</th><th>Full name</th><th>Groups</th><th>State</th><th>Actions</th></tr></thead>
        <tbody>{users.data?.data.map((user) => <UserRow key={`${user.loginName}:${user.groups.join()}:${user.disabled}`} api={api} user={user} changed={users.reload} />)}</tbody>
      </table>
      <CreateUser api={api} created={users.reload} />
    </section>
  );
}
