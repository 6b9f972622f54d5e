/**
 * A user as the users API carries it, in both directions: the node's users service answers with
 * it and takes a new user in it, and `svcdb user` reads and sends it. Never a password hash.
 */
export interface UserView {
  loginName: string;
  fullName: string;
  groups: string[];
  disabled: boolean;
}

/** A user to create: the view's names and groups, and the first password. */
export interface NewUser {
  loginName: string;
  fullName: string;
  groups: string[];
  password: string;
}
