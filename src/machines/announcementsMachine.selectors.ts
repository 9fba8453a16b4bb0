import type { Announcement, AnnouncementsSnapshot } from './announcementsMachine';

export const selectAnnouncements = (snapshot: AnnouncementsSnapshot): readonly Announcement[] =>
  snapshot.context.announcements;
