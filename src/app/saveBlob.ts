/** Saves `blob` through the browser as a download named `fileName`. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // Revoked once the browser has started the download.
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
