import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Database } from '../store/schema';

// oidc-provider's storage: one row per (id, model) in identityPayloads, the payload as JSON text
// and the looked-up fields (grantId, userCode, uid) copied into indexed columns. Every server
// process shares the rows, so sessions, codes and tokens survive restarts and load balancing.

const epochSeconds = () => Math.floor(Date.now() / 1000);

export interface AdapterOptions {
  /**
   * Rows of this model kept at most; the ones that expire first are dropped beyond it. Anyone can
   * make the provider store an interaction (each GET /auth does), so their number is bounded.
   */
  maxRows?: number;
}

export class KyselyAdapter implements Adapter {
  /** Writes since the last trim, which scans the model's rows: one per maxRows / 10 writes. */
  private writes = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly model: string,
    private readonly options: AdapterOptions = {},
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const row = {
      payload: JSON.stringify(payload),
      grantId: payload.grantId ?? null,
      userCode: payload.userCode ?? null,
      uid: payload.uid ?? null,
      expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : null,
    };
    await this.db
      .insertInto('identityPayloads')
      .values({ id, model: this.model, ...row })
      .onConflict((oc) => oc.columns(['id', 'model']).doUpdateSet(row))
      .execute();
    const { maxRows } = this.options;
    if (maxRows !== undefined && ++this.writes >= Math.max(1, Math.floor(maxRows / 10))) {
      this.writes = 0;
      await this.trim(maxRows);
    }
  }

  /**
   * Drops the rows beyond the `maxRows` that expire last. Rows of one model share one lifetime,
   * so these are the oldest. Each process trims after its own writes: with P processes the model
   * holds at most maxRows + P × maxRows / 10 rows.
   */
  private async trim(maxRows: number): Promise<void> {
    const cutoff = await this.db
      .selectFrom('identityPayloads')
      .select('expiresAt')
      .where('model', '=', this.model)
      .where('expiresAt', 'is not', null)
      .orderBy('expiresAt', 'desc')
      .limit(1)
      .offset(maxRows)
      .executeTakeFirst();
    if (cutoff?.expiresAt == null) return;
    await this.db
      .deleteFrom('identityPayloads')
      .where('model', '=', this.model)
      .where('expiresAt', '<=', cutoff.expiresAt)
      .execute();
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.findBy('id', id);
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findBy('uid', uid);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findBy('userCode', userCode);
  }

  async consume(id: string): Promise<void> {
    const found = await this.find(id);
    if (!found) return;
    await this.db
      .updateTable('identityPayloads')
      .set({ payload: JSON.stringify({ ...found, consumed: epochSeconds() }) })
      .where('id', '=', id)
      .where('model', '=', this.model)
      .execute();
  }

  async destroy(id: string): Promise<void> {
    await this.db
      .deleteFrom('identityPayloads')
      .where('id', '=', id)
      .where('model', '=', this.model)
      .execute();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db
      .deleteFrom('identityPayloads')
      .where('grantId', '=', grantId)
      .where('model', '=', this.model)
      .execute();
  }

  private async findBy(
    column: 'id' | 'uid' | 'userCode',
    value: string,
  ): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .selectFrom('identityPayloads')
      .select(['payload', 'expiresAt'])
      .where(column, '=', value)
      .where('model', '=', this.model)
      .executeTakeFirst();
    // An expired row is as good as gone; removeExpiredPayloads deletes it later.
    if (!row || (row.expiresAt !== null && row.expiresAt <= Date.now())) return undefined;
    return JSON.parse(row.payload) as AdapterPayload;
  }
}

/** Deletes rows whose expiry has passed (sessions, interactions, codes and tokens). */
export async function removeExpiredPayloads(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('identityPayloads')
    .where('expiresAt', 'is not', null)
    .where('expiresAt', '<=', Date.now())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
