import { createHttpClient } from '../http';

/** Test support: a client whose fetch records each request and answers `body` with `status`. */
export function recordingClient(status: number, body: unknown) {
  const calls: Array<{ method: string; url: string; body: unknown }> = [];
  const http = createHttpClient({
    baseUrl: '/api',
    authorization: () => 'Bearer t',
    fetch: (async (url: string, init: RequestInit) => {
      calls.push({
        method: String(init.method),
        url,
        body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
      });
      return new Response(body === undefined ? '' : JSON.stringify(body), { status });
    }) as unknown as typeof fetch,
  });
  return { http, calls };
}
