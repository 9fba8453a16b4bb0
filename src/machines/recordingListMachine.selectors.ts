import type { Recording } from '../api/recordings';
import type { RecordingListSnapshot } from './recordingListMachine';

export const selectRecordings = (snapshot: RecordingListSnapshot): readonly Recording[] =>
  snapshot.context.recordings;
export const selectRecordingsError = (snapshot: RecordingListSnapshot): string | null =>
  snapshot.context.error;
export const selectAreRecordingsLoading = (snapshot: RecordingListSnapshot): boolean =>
  snapshot.hasTag('loading');
