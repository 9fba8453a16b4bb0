// One JSON request to the API as the tests send it: `body` as JSON when given, the answer parsed
// when it is JSON (undefined otherwise), with its status, raw text and headers.

// Answers are checked field by field by the tests.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Reply {
  status: number;
  text: string;
  body: Json;
  headers: Headers;
}

export async function apiRequest(
  url: string,
  headers: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const res = await fetch(`${url}/api${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, text, body: parsed, headers: res.headers };
}
