import { filterIsos } from '../domain/templateFields';
import type { IsoChooserContext, IsoChooserSnapshot } from './isoChooserMachine';

// One filtered list per context object: the same array until the paths or filters change.
const filtered = new WeakMap<IsoChooserContext, string[]>();

/** The ISO paths to offer: the last search, filtered locally by term and workspace. */
export const selectIsoOptions = (snapshot: IsoChooserSnapshot): readonly string[] => {
  const { context } = snapshot;
  let options = filtered.get(context);
  if (options === undefined) {
    options = filterIsos(context.paths, context);
    filtered.set(context, options);
  }
  return options;
};

export const selectIsoTerm = (snapshot: IsoChooserSnapshot): string => snapshot.context.term;

export const selectIsoLocalOnly = (snapshot: IsoChooserSnapshot): boolean => snapshot.context.local;

export const selectIsIsoSearching = (snapshot: IsoChooserSnapshot): boolean =>
  snapshot.hasTag('busy');

/** The ISOs could not be listed: the chooser shows a short note instead. */
export const selectIsIsoListUnavailable = (snapshot: IsoChooserSnapshot): boolean =>
  snapshot.matches('unavailable');
