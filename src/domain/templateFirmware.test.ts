import { describe, expect, it } from 'vitest';
import { firmwareOf, withFirmware } from './templateFirmware';

describe('template firmware in the detail JSON', () => {
  it('reads Firmware, the reference’s firmware=efi setting, and a BIOS otherwise', () => {
    expect(firmwareOf('{"Ram": 1}')).toBe('bios');
    expect(firmwareOf('{"firmware": "UEFI"}')).toBe('uefi');
    expect(firmwareOf('{"Firmware": "bios", "GuestSettings": []}')).toBe('bios');
    expect(
      firmwareOf('{"GuestSettings": [{"Key": "firmware", "Value": "efi"}, {"Key": "x"}]}'),
    ).toBe('uefi');
    expect(firmwareOf('')).toBeNull();
    expect(firmwareOf('[1]')).toBeNull();
    expect(firmwareOf('{"Ram": ')).toBeNull();
  });

  it('writes Firmware into the detail, keeping the rest', () => {
    const text = withFirmware('{"Ram": 1, "firmware": "bios"}', 'uefi');
    expect(JSON.parse(text)).toEqual({ Ram: 1, Firmware: 'uefi' });
    expect(firmwareOf(withFirmware(text, 'bios'))).toBe('bios');
    expect(withFirmware('not json', 'uefi')).toBe('not json');
  });
});
