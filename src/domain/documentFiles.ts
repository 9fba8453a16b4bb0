/**
 * The files of a workspace's document folder as the Document tab's image manager sees them
 * (spec §5): the client's upload check, and the markdown that shows a file in the document.
 */

/** A file of the workspace's document folder, as the image manager lists it. */
export interface DocumentFile {
  filename: string;
  /** Where the file is served (`{apphost}docs/{workspaceId}/{filename}`). */
  url: string;
}

/** What the upload check reads of a chosen file (a browser `File` has all three). */
export interface ChosenFile {
  name: string;
  size: number;
  type: string;
}

/**
 * Files must be under this size to be sent (spec §5, §9), and the server takes no more. The
 * spec's label says '5MB limit'; the image manager says the real limit.
 */
export const UPLOAD_LIMIT_BYTES = 50_000_000;

/** The image manager's hint: the limit in megabytes as people read them (10^6 bytes). */
export const UPLOAD_LIMIT_TEXT = `Each file under ${UPLOAD_LIMIT_BYTES / 1_000_000} MB`;

/** The types an author may attach (spec §5): images and PDF. */
const UPLOAD_TYPES: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
};

/** Extensions that stand for those types when the browser reports no type. */
const UPLOAD_EXTENSIONS = /\.(?:png|jpe?g|gif|webp|pdf)$/i;

/** Files whose markdown is an image (`![...]`) rather than a link. */
const IMAGE_EXTENSIONS = /\.(?:png|jpe?g|gif|webp)$/i;

/** The client's check (spec §5): a png, jpeg, gif, webp or pdf under 50,000,000 bytes. */
export const isUploadable = (file: ChosenFile): boolean =>
  file.size < UPLOAD_LIMIT_BYTES &&
  (file.type === '' ? UPLOAD_EXTENSIONS.test(file.name) : file.type in UPLOAD_TYPES);

export const isImageFile = (filename: string): boolean => IMAGE_EXTENSIONS.test(filename);

/**
 * The markdown that shows a file in the document (spec §5): a link, with a leading ! for images.
 * Brackets in the name and spaces or parentheses in the url would end the link early.
 */
export function fileMarkdown(file: DocumentFile): string {
  const label = file.filename.replace(/[[\]\\]/g, (c) => `\\${c}`);
  const url = file.url.replace(/[ ()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${isImageFile(file.filename) ? '!' : ''}[${label}](${url})`;
}
