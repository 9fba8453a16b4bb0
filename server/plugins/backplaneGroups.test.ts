import { describe, expect, it } from 'vitest';
import { createMemoryBackplane } from '../hub/backplane';
import { observeGroups } from './backplaneGroups';

describe('observeGroups', () => {
  it('tells of every group message it delivers, and delivers it', () => {
    const groups: string[] = [];
    const delivered: string[] = [];
    const backplane = observeGroups(createMemoryBackplane(), (group) => groups.push(group));
    backplane.attach((audience, frame) => delivered.push(frame.toString()));
    backplane.publish({ all: false, group: 'g1' }, Buffer.from('one'));
    backplane.publish({ all: true }, Buffer.from('two'));
    backplane.publish({ all: false, group: 'g2', except: 'c' }, Buffer.from('three'));
    expect(groups).toEqual(['g1', 'g2']);
    expect(delivered).toEqual(['one', 'two', 'three']);
  });
});
