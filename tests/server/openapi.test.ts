import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness';

// The API's description (GET /api/openapi.json) and its page at /api.

type Operation = { operationId?: string; summary?: string; tags?: string[] };
type Document = { paths: Record<string, Record<string, Operation>> };

describe('the OpenAPI document and its page', () => {
  let server: TestServer;
  let document: Document;

  beforeAll(async () => {
    server = await startTestServer();
    document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Document;
  });
  afterAll(() => server?.close());

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );

  it('gives every operation a summary', () => {
    expect(operations().length).toBeGreaterThan(100);
    const without = operations()
      .filter(({ operation }) => !operation.summary?.trim())
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(without).toEqual([]);
    const janitor = document.paths['/api/admin/janitor']?.post;
    expect(janitor?.summary).toBe('Run janitor cleanup');
  });

  it('files the health and version routes under Health, not User', () => {
    for (const path of ['/api/health/live', '/api/health/ready', '/api/version']) {
      expect(document.paths[path]?.get?.tags, path).toEqual(['Health']);
    }
    expect(document.paths['/api/user']?.get?.tags).toEqual(['User']);
  });

  it('files every route under its resource: the catch-all Api tag holds the document alone', () => {
    // The page renders the groups as they come into view: a crowded first group pushes the
    // others out of the first screen.
    const untagged = operations()
      .filter(({ operation }) => operation.tags?.includes('Api'))
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(untagged).toEqual(['GET /api/openapi.json']);
    expect(document.paths['/api/wall']?.get?.tags).toEqual(['Observe']);
  });

  it("shows the product's page: its title, no Swagger top bar or Explore box", async () => {
    const page = await (await fetch(`${server.url}/api/static/index.html`)).text();
    expect(page).toContain('<title>Topoplay API</title>');
    const init = await (await fetch(`${server.url}/api/static/swagger-initializer.js`)).text();
    expect(init).toMatch(/"layout":\s*"BaseLayout"/);
  });
});
