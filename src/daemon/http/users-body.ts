/**
 * Request bodies of the users API. Fields are accepted under the reference's PascalCase names
 * (`LoginName`, `NewPassword`) and their camelCase forms (`loginName`, `newPassword`).
 */
import { Errors } from '../../common/errors.js';
import type { NewUser, UserChange } from '../services/users.js';

type Body = Record<string, unknown>;

function objectOf(body: unknown): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw Errors.userInvalid.create('the body must be a JSON object');
  }
  return body as Body;
}

/** `name` is camelCase; its PascalCase form is looked up too. */
function fieldOf(body: Body, name: string): unknown {
  return body[name] ?? body[name[0].toUpperCase() + name.slice(1)];
}

function optionalText(body: Body, name: string): string | undefined {
  const value = fieldOf(body, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw Errors.userInvalid.create(`${name} must be a string`);
  return value;
}

function requiredText(body: Body, name: string): string {
  const value = optionalText(body, name);
  if (value === undefined || value === '') throw Errors.userInvalid.create(`${name} is required and must be a non-empty string`);
  return value;
}

function optionalGroups(body: Body): string[] | undefined {
  const value = fieldOf(body, 'groups');
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((group) => typeof group === 'string' && group.trim() !== '')) {
    throw Errors.userInvalid.create('groups must be a list of non-empty strings');
  }
  return [...new Set(value as string[])];
}

export function newUserOf(raw: unknown): NewUser {
  const body = objectOf(raw);
  return {
    loginName: requiredText(body, 'loginName'),
    fullName: optionalText(body, 'fullName') ?? '',
    groups: optionalGroups(body) ?? [],
    password: requiredText(body, 'password'),
  };
}

/** The body of PUT /users/{login} is optional: none at all changes nothing, as `{}` does. */
export function userChangeOf(raw: unknown): UserChange {
  if (raw === undefined) return {};
  const body = objectOf(raw);
  const change: UserChange = {};
  const fullName = optionalText(body, 'fullName');
  const groups = optionalGroups(body);
  if (fullName !== undefined) change.fullName = fullName;
  if (groups !== undefined) change.groups = groups;
  return change;
}

export function newPasswordOf(raw: unknown): string {
  return requiredText(objectOf(raw), 'newPassword');
}

export function passwordChangeOf(raw: unknown): { currentPassword: string; newPassword: string } {
  const body = objectOf(raw);
  return { currentPassword: requiredText(body, 'currentPassword'), newPassword: requiredText(body, 'newPassword') };
}
