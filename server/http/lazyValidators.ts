import ValidatorSelector from '@fastify/ajv-compiler';
import type { FastifyInstance } from 'fastify';

// Fastify compiles an ajv validator for every request part (body, querystring, params, headers)
// of every route while the server starts, mostly for routes a process never receives. This
// builds the same validators, from the same schemas and with the same ajv instance and options,
// on the first request that needs one instead, and keeps them.

type ValidatorFactory = ReturnType<typeof ValidatorSelector>;
type Compile = ReturnType<ValidatorFactory>;
type Validate = ReturnType<Compile>;

export function lazyValidators(): ValidatorFactory {
  const selector = ValidatorSelector();
  return (externalSchemas, options) => {
    const compile = selector(externalSchemas, options);
    return (route) => {
      let validate: Validate | undefined;
      const inner = () => (validate ??= compile(route));
      const lazy = function (this: unknown, ...args: unknown[]) {
        return (inner() as (...a: unknown[]) => unknown).apply(this, args);
      };
      // Fastify reads these of the function it holds: `schemaEnv` to pass the request as the
      // part's parent (so ajv may replace a coerced root value), `errors` after a failure.
      Object.defineProperties(lazy, {
        schemaEnv: { get: () => inner().schemaEnv },
        errors: { get: () => validate?.errors ?? null },
      });
      return lazy as unknown as Validate;
    };
  };
}

/**
 * Fastify takes any `compilersFactory.buildValidator` for a custom one (Joi, TypeBox…) and then
 * leaves a headers schema's property names as written, where for its own ajv compiler it
 * lowercases them to match a request's header names. Ours is its own compiler, deferred, so the
 * server is told so; call it right after `Fastify()`, before any plugin or route.
 */
export function keepAjvHeaderNames(app: FastifyInstance): void {
  const key = Object.getOwnPropertySymbols(app).find(
    (symbol) => symbol.description === 'fastify.schemaController',
  );
  const controller = key && (app as unknown as Record<symbol, unknown>)[key];
  if (
    !controller ||
    typeof controller !== 'object' ||
    (controller as { isCustomValidatorCompiler?: unknown }).isCustomValidatorCompiler !== true
  ) {
    throw new Error('fastify no longer keeps its schema controller where lazyValidators expects');
  }
  (controller as { isCustomValidatorCompiler: boolean }).isCustomValidatorCompiler = false;
}
