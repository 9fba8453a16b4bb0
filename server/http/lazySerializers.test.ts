import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { describe, expect, it } from 'vitest';
import { lazySerializers } from './lazySerializers';

const route = (schema: unknown) => ({ method: 'GET', url: '/x', httpStatus: '200', schema });

describe('lazySerializers', () => {
  it('writes what the eager serializer writes, for the same schema', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' }, count: { type: 'integer' } },
    };
    const doc = { id: 'a', count: 2.7, secret: 'not in the schema' };
    const eager = SerializerSelector()(undefined, {})(route(schema));
    const lazy = lazySerializers()(undefined, {})(route(schema));
    expect(lazy(doc)).toBe(eager(doc));
    expect(JSON.parse(lazy(doc))).toEqual({ id: 'a', count: 2 });
  });

  it('compiles a schema on its first use, not before', () => {
    const broken = route({ type: 'object', properties: { a: { $ref: '#/nowhere' } } });
    expect(() => SerializerSelector()(undefined, {})(broken)).toThrow();
    const serialize = lazySerializers()(undefined, {})(broken);
    expect(() => serialize({ a: 1 })).toThrow();
  });
});
