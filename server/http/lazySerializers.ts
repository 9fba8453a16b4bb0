import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

// Fastify compiles a serializer (fast-json-stringify) for every response schema of every route
// while the server starts: some 0.3 s of CPU time per start (a sixth to a fifth of it), mostly
// for routes a process never answers. This builds the same serializers, from the same schemas
// and options, on a route's first answer with that status instead, and keeps them.

type SerializerFactory = ReturnType<typeof SerializerSelector>;

export function lazySerializers(): SerializerFactory {
  const selector = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = selector(externalSchemas, options);
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined;
      return (doc: unknown) => (serialize ??= compile(route))(doc);
    };
  };
}
