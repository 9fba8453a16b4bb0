// The firmware a template's detail (VmTemplate JSON) asks for: our optional `Firmware` field,
// "uefi" or a BIOS (no field). The reference's own way, a guest setting firmware=efi, is read as
// UEFI too (server/core/templateDetail.ts isUefi). The template editor's select reads and writes
// it here, in the JSON text the author also edits by hand.

export type TemplateFirmware = 'bios' | 'uefi';

const UEFI = /^u?efi$/i;

function objectOf(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const keyOf = (o: Record<string, unknown>, name: string): string | undefined =>
  Object.keys(o).find((k) => k.toLowerCase() === name);

/** The detail's firmware; null when the text is no VmTemplate JSON (or empty). */
export function firmwareOf(text: string): TemplateFirmware | null {
  const o = objectOf(text);
  if (!o) return null;
  const own = keyOf(o, 'firmware');
  if (own !== undefined && typeof o[own] === 'string' && o[own]) {
    return UEFI.test((o[own] as string).trim()) ? 'uefi' : 'bios';
  }
  const settings = o[keyOf(o, 'guestsettings') ?? ''];
  const efi =
    Array.isArray(settings) &&
    settings.some((s: unknown) => {
      const entry = s && typeof s === 'object' ? (s as Record<string, unknown>) : {};
      const key = entry[keyOf(entry, 'key') ?? ''];
      const value = entry[keyOf(entry, 'value') ?? ''];
      return (
        typeof key === 'string' &&
        key.trim().toLowerCase() === 'firmware' &&
        typeof value === 'string' &&
        UEFI.test(value.trim())
      );
    });
  return efi ? 'uefi' : 'bios';
}

/** The detail text with its firmware set: `Firmware: "uefi"`, or "bios"; unchanged if no JSON. */
export function withFirmware(text: string, firmware: TemplateFirmware): string {
  const o = objectOf(text);
  if (!o) return text;
  const own = keyOf(o, 'firmware');
  if (own !== undefined) delete o[own];
  return JSON.stringify({ ...o, Firmware: firmware }, null, 2);
}
