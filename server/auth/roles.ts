// The role rules are the domain's (server/core/roles.ts); kept here for those who import them
// from the authentication layer.
export * from '../core/roles';
