import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, Forbidden, isInvalidValue, ValidationFailed } from '../core/errors';
import type { ErrorLog } from '../core/errorLog';
import { isDriverError, type DriverError } from '../hypervisor';
import { bodyCutShort } from './body';

// How every error is answered (wire reference §0): domain errors 400 {"message": name};
// authorization 403 with an empty body; argument validation 400 problem details; anything else
// 500 {"message":"Error"}, logged with the request's context. What fails because the request's
// body was cut short (its client went away, or was too slow) is the client's doing, and its
// answer reaches no one: it is logged as what happened, never as a server error.

function problem(reply: FastifyReply, request: FastifyRequest, errors: Record<string, string[]>) {
  const first = Object.values(errors)[0]?.[0] ?? 'Invalid';
  return reply.code(400).type('application/problem+json').send({
    type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
    title: 'One or more validation errors occurred.',
    status: 400,
    errors,
    traceId: request.id,
    // Not in ASP.NET's shape; added so clients that show `message` (our SPA, scripts) have one.
    message: first,
  });
}

/**
 * A hypervisor driver's error as the domain error the wire has always carried for it: an unknown
 * machine is ResourceNotFound, a launch beyond capacity HypervisorCapacity, and everything else
 * InvalidOperation with the driver's words as its detail.
 */
export function domainErrorOf(error: DriverError): DomainError {
  switch (error.code) {
    case 'not-found':
      return new DomainError('ResourceNotFound');
    case 'capacity':
      return new DomainError('HypervisorCapacity', undefined, { capacity: error.message });
    default:
      return new DomainError('InvalidOperation', error.message);
  }
}

/** `errorLog` keeps the unexpected ones (the 500s) for GET /api/admin/log. */
export function registerErrorHandling(app: FastifyInstance, errorLog?: ErrorLog): void {
  app.setErrorHandler((thrown: FastifyError | Error, request, reply) => {
    const cut = bodyCutShort(request);
    if (cut) {
      const what = request.routeOptions.config?.upload ? 'upload' : 'request';
      request.log.info(
        { url: request.url, method: request.method, reason: thrown.message },
        cut === 'aborted'
          ? `${what} aborted by the client`
          : `${what} dropped: its body came too slowly`,
      );
      return reply.code(400).send({ message: 'InvalidOperation' });
    }
    const error = isDriverError(thrown) ? domainErrorOf(thrown) : thrown;
    if (error instanceof Forbidden) return reply.code(403).send('');
    if (error instanceof DomainError) {
      return reply.code(400).send({ message: error.message, ...error.facts });
    }
    if (error instanceof ValidationFailed) {
      return problem(reply, request, { [error.argument]: [error.reason] });
    }
    const fe = error as FastifyError;
    if (fe.validation) {
      const errors: Record<string, string[]> = {};
      for (const v of fe.validation) {
        const path =
          v.instancePath?.replace(/^\//, '').replace(/\//g, '.') ||
          String(
            (v.params as { missingProperty?: string })?.missingProperty ??
              fe.validationContext ??
              'body',
          );
        const text =
          v.keyword === 'required'
            ? `Missing value for required property '${(v.params as { missingProperty?: string }).missingProperty}'`
            : `InvalidPropertyValue '${path}' ${v.message ?? ''}`.trim();
        (errors[path] ??= []).push(text);
      }
      return problem(reply, request, errors);
    }
    if (isInvalidValue(error)) {
      return problem(reply, request, {
        value: ['A value is out of range or holds characters that cannot be stored.'],
      });
    }
    if (fe.statusCode === 403 || fe.statusCode === 404) {
      // From the static file server (a folder, a hidden file): nothing to show.
      return reply.code(fe.statusCode).send('');
    }
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      // Framework-level client errors: malformed JSON, unsupported media type, a body too large
      // (a form of too many parts or with too long a field too: server/http/form.ts).
      const message =
        fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'UnsupportedMediaType'
          : fe.statusCode === 413
            ? 'PayloadTooLarge'
            : 'InvalidOperation';
      return reply.code(fe.statusCode).send({ message });
    }
    request.log.error({ err: error, url: request.url, method: request.method }, 'unhandled error');
    errorLog?.record(error, request.id);
    return reply.code(500).send({ message: 'Error' });
  });
}
