import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

// Who wrote to which table, as the query builder sees it: for what this process keeps in memory
// from a table (the callers' rows, see core/callerCache.ts), so that a change made through this
// process's connection drops the copy, whatever code made it. Raw SQL and other processes are not
// seen: a keeper must bound its copies' age as well.

export type WriteListener = (table: string) => void;

/** The table a query node names, through an alias. */
function tableOf(node: OperationNode | undefined): string | null {
  if (!node) return null;
  if (node.kind === 'AliasNode') return tableOf((node as unknown as { node: OperationNode }).node);
  if (node.kind !== 'TableNode') return null;
  return (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
}

/** The tables an insert, update or delete writes, its WITH clauses' included; none for a read. */
export function writtenTables(node: RootOperationNode): string[] {
  const ctes = (node as { with?: { expressions: Array<{ expression: RootOperationNode }> } }).with;
  const inWith = ctes?.expressions.flatMap((cte) => writtenTables(cte.expression)) ?? [];
  return [...inWith, ...ownTables(node)];
}

function ownTables(node: RootOperationNode): string[] {
  switch (node.kind) {
    case 'InsertQueryNode':
      return [tableOf(node.into)].filter((t): t is string => !!t);
    case 'UpdateQueryNode':
      return [tableOf(node.table)].filter((t): t is string => !!t);
    case 'DeleteQueryNode':
      return node.from.froms.map(tableOf).filter((t): t is string => !!t);
    default:
      return [];
  }
}

/**
 * A Kysely plugin telling its listeners of every write, before the query runs and again once it
 * has run, so that a read made meanwhile is not kept either. It must come before the plugins that
 * rename tables (CamelCasePlugin): listeners hear the names the code uses.
 */
export class WriteWatchPlugin implements KyselyPlugin {
  private readonly listeners = new Set<WriteListener>();
  private readonly pending = new WeakMap<object, string[]>();

  /** Calls `listener` on every write; returns the function that stops it. */
  watch(listener: WriteListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private tell(tables: string[]) {
    for (const table of tables) for (const listener of this.listeners) listener(table);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.listeners.size) {
      const tables = writtenTables(args.node);
      if (tables.length) {
        this.pending.set(args.queryId, tables);
        this.tell(tables);
      }
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const tables = this.pending.get(args.queryId);
    if (tables) this.tell(tables);
    return args.result;
  }
}
