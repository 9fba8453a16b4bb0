import { describe, expect, it } from 'vitest';
import { forAll, seededRandom } from './testing/property';
import {
  placeholdersIn,
  B64_DEFAULT,
  GENERATED_MAX,
  HEX_DEFAULT,
  parseCidr,
  resolveTransforms,
  resolveValue,
  substitute,
  toBase64,
  transformValueMessage,
  type Random,
  type TransformContext,
} from './transforms';

const CONTEXT: TransformContext = {
  gamespaceId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
  variant: 1,
  graderUrl: 'https://topo.example.com/topomojo/api/gamespace/grade',
  graderKey: 'plain-grader-key',
};

const fromB64 = (text: string): number[] => [...atob(text)].map((c) => c.charCodeAt(0));

const value = (spec: string, random: Random, current = 0) =>
  resolveValue(spec, CONTEXT, random, current);

const ipToInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);

describe('transform values', () => {
  it('resolve the built-in names from the gamespace', () => {
    const random = seededRandom(1);
    expect(value('id', random)).toBe(CONTEXT.gamespaceId);
    expect(value('variant', random)).toBe('1');
    expect(value('app_url', random)).toBe('https://topo.example.com/topomojo');
    expect(value('topomojo_url', random)).toBe('https://topo.example.com/topomojo');
    expect(value('grader_url', random)).toBe(CONTEXT.graderUrl);
    for (const name of ['grader_key', 'api_key', 'apikey']) {
      expect(value(name, random)).toBe('plain-grader-key');
    }
  });

  it('hex:N is N lowercase hex characters (default 8, at most 256), odd N included', () => {
    forAll((random) => {
      const n = random.int(1, 300);
      expect(value(`hex:${n}`, random)).toMatch(
        new RegExp(`^[0-9a-f]{${Math.min(n, GENERATED_MAX)}}$`),
      );
      expect(value('hex:12', random)).toMatch(/^[0-9a-f]{12}$/);
      expect(value('hex', random)).toHaveLength(HEX_DEFAULT);
    });
  });

  it('b64:N decodes to N bytes (default 16, at most 256)', () => {
    forAll((random) => {
      const n = random.int(1, 300);
      expect(fromB64(value(`b64:${n}`, random))).toHaveLength(Math.min(n, GENERATED_MAX));
      expect(fromB64(value('b64', random))).toHaveLength(B64_DEFAULT);
    });
  });

  it('encodes base64 as the standard alphabet with padding', () => {
    forAll((random) => {
      const bytes = random.bytes(random.int(0, 40));
      expect(fromB64(toBase64(bytes))).toEqual([...bytes]);
    });
    expect(toBase64(new TextEncoder().encode('any carnal pleas'))).toBe('YW55IGNhcm5hbCBwbGVhcw==');
  });

  it('int:min-max stays in [min, max), int:max in [0, max)', () => {
    forAll((random) => {
      const n = Number(value('int:99-999', random));
      expect(Number.isInteger(n) && n >= 99 && n < 999).toBe(true);
      const m = Number(value('int:10', random));
      expect(Number.isInteger(m) && m >= 0 && m < 10).toBe(true);
      expect(value('int:5-5', random)).toBe('5');
    });
  });

  it('treats an unknown type as int, the reference quirk kept for compatibility', () => {
    forAll((random) => {
      const n = Number(value('hx:3-7', random));
      expect(n >= 3 && n < 7).toBe(true);
      expect(value('whatever', random)).toMatch(/^\d+$/);
    });
  });

  it('uid is a version 4 GUID in "n" format', () => {
    forAll((random) => {
      expect(value('uid', random)).toMatch(/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    });
  });

  it('list:2:a b c gives two distinct words; list:a b c one', () => {
    forAll((random) => {
      const two = value('list:2:a b c', random).split(' ');
      expect(two).toHaveLength(2);
      expect(new Set(two).size).toBe(2);
      for (const w of two) expect(['a', 'b', 'c']).toContain(w);
      expect(['a', 'b', 'c']).toContain(value('list:a b c', random));
      expect(value('list:9:a b', random).split(' ').sort()).toEqual(['a', 'b']);
    });
  });

  it('index:N picks the word at N, clamped to the list', () => {
    const random = seededRandom(3);
    expect(value('index:1:a b c', random)).toBe('b');
    expect(value('index:0:a b c', random)).toBe('a');
    expect(value('index:7:a b c', random)).toBe('c');
    expect(value('index:-2:a b c', random)).toBe('a');
    expect(value('index:a b c', random, 2)).toBe('c');
    expect(value('index:x:a b c', random, 1)).toBe('b');
  });

  it.each(['10.0.0.0/24', '172.16.0.0/16', '192.168.22.4/30', '192.168.22.9/32', '10.1.2.3/31'])(
    'ipv4:%s is an address inside the network, not its network or broadcast address',
    (cidr) => {
      const net = parseCidr(cidr)!;
      forAll((random) => {
        const ip = value(`ipv4:${cidr}`, random);
        expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
        const n = ipToInt(ip);
        expect(n >= net.network && n < net.network + net.size).toBe(true);
        if (net.size > 2) {
          expect(n).not.toBe(net.network);
          expect(n).not.toBe(net.network + net.size - 1);
        }
      }, 50);
    },
  );

  it('ipv4 of a /32 is that address', () => {
    expect(value('ipv4:192.168.22.9/32', seededRandom(1))).toBe('192.168.22.9');
  });
});

describe('resolveTransforms', () => {
  it('resolves in order and appends key_1..key_n for values of several words', () => {
    const resolved = resolveTransforms(
      [
        { key: 'words', value: 'list:2:red green blue' },
        { key: 'token', value: 'hex:4' },
      ],
      CONTEXT,
      seededRandom(7),
    );
    expect(resolved.map((t) => t.key)).toEqual(['words', 'token', 'words_1', 'words_2']);
    const [words, , first, second] = resolved;
    expect(words!.value.split(' ')).toEqual([first!.value, second!.value]);
  });

  it('index without a position uses the int of an earlier transform keyed index', () => {
    forAll((random) => {
      const resolved = resolveTransforms(
        [
          { key: 'index', value: 'int:0-3' },
          { key: 'os', value: 'index:linux windows mac' },
          { key: 'port', value: 'index:22 3389 5900' },
        ],
        CONTEXT,
        random,
      );
      const i = Number(resolved[0]!.value);
      expect(resolved[1]!.value).toBe(['linux', 'windows', 'mac'][i]);
      expect(resolved[2]!.value).toBe(['22', '3389', '5900'][i]);
    });
  });

  it('does not change the list it was given', () => {
    const transforms = [{ key: 'a', value: 'list:2:x y z' }];
    resolveTransforms(transforms, CONTEXT, seededRandom(1));
    expect(transforms).toEqual([{ key: 'a', value: 'list:2:x y z' }]);
  });
});

describe('substitute', () => {
  it('replaces every ##key## and leaves other text alone', () => {
    expect(
      substitute('flag ##a## at ##host##:##a##, not ##b## or #a#', [
        { key: 'a', value: 'X1' },
        { key: 'host', value: '10.0.0.7' },
      ]),
    ).toBe('flag X1 at 10.0.0.7:X1, not ##b## or #a#');
  });

  it('keeps key and key_1 apart', () => {
    expect(
      substitute('##w## / ##w_1##', [
        { key: 'w', value: 'a b' },
        { key: 'w_1', value: 'a' },
      ]),
    ).toBe('a b / a');
  });
});

describe('transformValueMessage (the form check)', () => {
  it.each([
    'hex',
    'hex:12',
    'b64',
    'b64:16',
    'int',
    'int:99-999',
    'uid',
    'list:a b c',
    'list:2:a b c',
    'index:3:a b c d',
    'ipv4:192.168.22.0/24',
    'id',
    'variant',
    'app_url',
    'grader_key',
  ])('accepts %s', (spec) => {
    expect(transformValueMessage(spec)).toBeNull();
  });

  it.each(['', 'hx:8', 'hex:a', 'int:1-', 'list:', 'ipv4:10.0.0/24', 'uid:3', 'id:4'])(
    'rejects %j',
    (spec) => {
      expect(transformValueMessage(spec)).toEqual(expect.any(String));
    },
  );
});

describe('placeholdersIn', () => {
  it('lists the distinct ##key## placeholders of a text in order, and nothing else', () => {
    expect(placeholdersIn('Log in as ##user## with ##pass##, then ##user## again.')).toEqual([
      '##user##',
      '##pass##',
    ]);
    expect(placeholdersIn('Reach ##ipv4:10.0.0.0/8## or ##app_url##')).toEqual([
      '##ipv4:10.0.0.0/8##',
      '##app_url##',
    ]);
    expect(placeholdersIn('# A heading\n## Another\n#### not ## a key')).toEqual([]);
  });
});
