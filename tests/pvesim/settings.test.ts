import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { exportLines, shellWord } from './settings';

describe('the settings sim:proxmox prints', () => {
  it('are export lines a shell takes as they are, values intact', () => {
    const settings = [
      ['HYPERVISOR', 'proxmox'],
      ['PROXMOX_URL', 'https://127.0.0.1:8006'],
      ['PROXMOX_TOKEN_ID', 'root@pam!topoplay'],
      ['PROXMOX_TOKEN_SECRET', 'a\'b $HOME `x` "q"'],
      ['PROXMOX_FINGERPRINT', 'AB:CD:EF'],
    ] as const;
    const lines = exportLines(settings);
    expect(lines[0]).toBe('export HYPERVISOR=proxmox');
    expect(lines[2]).toBe("export PROXMOX_TOKEN_ID='root@pam!topoplay'");
    // The lines pasted into a real shell set every variable to exactly its value.
    const script = `${lines.join('\n')}\nenv -0`;
    const env = execFileSync('sh', ['-c', script], { env: {} })
      .toString()
      .split('\0')
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]);
    for (const [name, value] of settings) expect(env).toContainEqual([name, value]);
  });

  it('quotes only what needs quoting', () => {
    expect(shellWord('local-lvm')).toBe('local-lvm');
    expect(shellWord('')).toBe("''");
    expect(shellWord('a b')).toBe("'a b'");
  });
});
