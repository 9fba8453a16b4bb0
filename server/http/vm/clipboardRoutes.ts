import type { FastifyInstance } from 'fastify';
import type { VmClipboardService } from '../../core/vmClipboard';
import { actorOf } from '../auth';
import { doneResponses, errorResponses } from '../schemas';
import { typed } from '../typed';
import { idParams } from './schemas';

// The console's clipboard (ours, not the reference's): what the console page can do with the
// machine's clipboard, the text last copied inside it, and the record of a paste the page typed.
// Called by the console tab with its cookie, so any scheme may (`anyUser`); whoever may open the
// machine's console may use its clipboard.

const clipboardSchema = {
  type: 'object',
  required: ['copy', 'paste'],
  properties: {
    copy: {
      type: 'boolean',
      description: 'Text copied inside the machine (topoplay-copy) can be copied out',
    },
    paste: { type: 'boolean', description: 'Text can be pasted into the machine (typed)' },
    via: {
      type: 'string',
      enum: ['agent', 'vdagent'],
      description:
        "How, when copy works: agent (topoplay-copy, paste typed) or vdagent (the desktop's " +
        'clipboard both ways, through the VNC extended clipboard)',
    },
  },
} as const;

const copiedSchema = {
  type: 'object',
  required: ['text'],
  properties: { text: { type: 'string', description: 'What was last copied in the machine' } },
} as const;

export async function vmClipboardRoutes(
  fastify: FastifyInstance,
  options: { clipboard: VmClipboardService },
) {
  const app = typed(fastify);
  const { clipboard } = options;

  app.get(
    '/api/vm/:id/clipboard',
    {
      config: { auth: 'anyUser' },
      schema: { params: idParams, response: { 200: clipboardSchema, ...errorResponses } },
    },
    async (request) => clipboard.capabilities(actorOf(request), request.params.id),
  );

  app.post(
    '/api/vm/:id/clipboard/copy',
    {
      config: { auth: 'anyUser' },
      schema: { params: idParams, response: { 200: copiedSchema, ...errorResponses } },
    },
    async (request) => clipboard.copy(actorOf(request), request.params.id),
  );

  app.post(
    '/api/vm/:id/clipboard/paste',
    {
      config: { auth: 'anyUser' },
      schema: { params: idParams, response: doneResponses },
    },
    async (request, reply) => {
      await clipboard.pasted(actorOf(request), request.params.id);
      return reply.code(200).send('');
    },
  );
}
