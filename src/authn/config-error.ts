/** A configuration file the authenticators load at start is unusable; the message names file and line. */
export class AuthnConfigError extends Error {}
