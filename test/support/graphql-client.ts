/** A tiny GraphQL-over-HTTP client for e2e suites: real HTTP, no Apollo client. */

/** Suites check response shapes with assertions, so the default data type is deliberately loose. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type AnyData = Record<string, any>;
export interface GqlError {
  message: string;
  path?: (string | number)[];
  extensions: { code: string; [key: string]: unknown };
}

export interface GqlResponse<T = AnyData> {
  status: number;
  data: T | null | undefined;
  errors: GqlError[] | undefined;
}

export async function gql<T = AnyData>(
  url: string,
  token: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<GqlResponse<T>> {
  const endpoint = url.endsWith('/graphql') ? url : `${url.replace(/\/$/, '')}/graphql`;
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T | null; errors?: GqlError[] };
  return { status: res.status, data: body.data, errors: body.errors };
}

/** The data of a response that must have succeeded; fails the test with the errors otherwise. */
export async function gqlOk<T = AnyData>(
  url: string,
  token: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const res = await gql<T>(url, token, query, variables);
  if (res.errors?.length || !res.data) throw new Error(`GraphQL errors: ${JSON.stringify(res.errors, null, 2)}`);
  return res.data;
}

/** The first error's extensions.code (or 'OK'). */
export const codeOf = (res: GqlResponse): string => res.errors?.[0]?.extensions.code ?? 'OK';
