import * as t from 'io-ts';

/** The server writes unset values out as null (wire reference §0); accept both null and absent. */
export const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/** A response without a body (200 with nothing to read). */
export const NoContent = t.unknown;
