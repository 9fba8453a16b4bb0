// JSON schemas of the document and image routes (wire reference §1.6, §2.6 ImageFile).

export { idParams } from '../schemas';

export const publishedParams = {
  type: 'object',
  required: ['workspaceId', 'file'],
  properties: {
    workspaceId: { type: 'string', maxLength: 64 },
    file: { type: 'string', maxLength: 255 },
  },
} as const;

/** `filename` is checked by the image service, so that a missing one gets its clear message. */
export const imageDeleteQuery = {
  type: 'object',
  properties: { filename: { type: 'string', maxLength: 255 } },
} as const;

export const crdtSchema = {
  type: 'object',
  required: ['update'],
  properties: { update: { type: 'string', description: 'A Yjs update (format v1), base64' } },
} as const;

export const imageFileSchema = {
  type: 'object',
  required: ['filename', 'url', 'size', 'type'],
  properties: {
    filename: { type: 'string' },
    url: { type: 'string' },
    size: { type: 'integer' },
    type: { type: 'string' },
  },
} as const;
