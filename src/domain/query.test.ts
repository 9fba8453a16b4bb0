import { describe, expect, it } from 'vitest';
import { toQueryString, withQuery } from './query';

describe('toQueryString', () => {
  it('joins present values in key order behind a question mark', () => {
    expect(toQueryString({ term: 'lab', skip: 100, take: 50 })).toBe('?term=lab&skip=100&take=50');
  });

  it('is empty when there is nothing to send', () => {
    expect(toQueryString({})).toBe('');
  });

  it('omits empty and falsy values: undefined, null, empty string, 0, false, NaN, empty arrays', () => {
    expect(
      toQueryString({ a: undefined, b: null, c: '', d: 0, e: false, f: Number.NaN, g: [], h: 'x' }),
    ).toBe('?h=x');
  });

  it('repeats the key for every item of an array and skips falsy items', () => {
    expect(toQueryString({ filter: ['active', '', null, 'mine', 0], term: 'a' })).toBe(
      '?filter=active&filter=mine&term=a',
    );
  });

  it('omits an array whose items are all falsy', () => {
    expect(toQueryString({ filter: ['', null, undefined] })).toBe('');
  });

  it('keeps true and negative numbers', () => {
    expect(toQueryString({ all: true, skip: -1 })).toBe('?all=true&skip=-1');
  });

  it('encodes keys and values as URI components', () => {
    expect(toQueryString({ 'a b': 'x&y=z/é', term: '#1 100%' })).toBe(
      '?a%20b=x%26y%3Dz%2F%C3%A9&term=%231%20100%25',
    );
  });

  it('writes dates as ISO strings', () => {
    expect(toQueryString({ since: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)) })).toBe(
      '?since=2024-01-02T03%3A04%3A05.000Z',
    );
  });
});

describe('withQuery', () => {
  it('appends the query string to a path', () => {
    expect(withQuery('/api/gamespaces', { term: 'x', filter: ['a', 'b'] })).toBe(
      '/api/gamespaces?term=x&filter=a&filter=b',
    );
  });

  it('leaves the path alone when there is nothing to send', () => {
    expect(withQuery('/api/gamespaces', { term: '' })).toBe('/api/gamespaces');
  });

  it('extends a query the path already has', () => {
    expect(withQuery('/api/gamespaces?take=10', { skip: 20 })).toBe(
      '/api/gamespaces?take=10&skip=20',
    );
  });
});
