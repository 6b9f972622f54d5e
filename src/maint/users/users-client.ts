/** The users API of a node as `svcdb user` uses it: list, create, reset a password, disable. */
import type { NewUser, UserView } from '../../common/user-documents.js';
import type { NodeClient } from '../node-client/node-client.js';

export type UserSummary = UserView;

const userPath = (login: string) => `/users/${encodeURIComponent(login)}`;

export async function listUsers(client: NodeClient): Promise<UserSummary[]> {
  const { data } = await client.json<{ data: UserSummary[] }>('GET', '/users/');
  return data.map(({ loginName, fullName, groups, disabled }) => ({ loginName, fullName, groups, disabled }));
}

export async function addUser(client: NodeClient, user: NewUser): Promise<void> {
  await client.json('POST', '/users/', user);
}

export async function resetPassword(client: NodeClient, login: string, newPassword: string): Promise<void> {
  await client.json('POST', `${userPath(login)}/command/reset-password`, { newPassword });
}

export async function setDisabled(client: NodeClient, login: string, disabled: boolean): Promise<void> {
  await client.json('POST', `${userPath(login)}/command/${disabled ? 'disable' : 'enable'}`);
}
