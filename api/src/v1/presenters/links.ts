/** Addresses of the version 1 interface: every resource under `/api/`, with a trailing slash. */
export const v1Ref = (origin: string, path: string) => `${origin}/api/${path}`;

export const v1UserRef = (origin: string, username: string) =>
  v1Ref(origin, `people/${encodeURIComponent(username)}/`);

/** The website's page of a user, as `url` fields show it. */
export const userPage = (origin: string, username: string) =>
  `${origin}/people/${encodeURIComponent(username)}/`;

/** `YYYY-MM-DD HH:MM:SS` (UTC, no zone): the version 1 form of every timestamp. */
export function v1Timestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** The `user` object every version 1 sound and pack carries. */
export function v1UserLink(origin: string, username: string) {
  return { username, url: userPage(origin, username), ref: v1UserRef(origin, username) };
}
