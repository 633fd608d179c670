import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '#platform';
import { LinkBase } from './link-base.js';

describe('LinkBase: the original endpoint links on configured addresses only', () => {
  const links = new LinkBase(['https://api.example.com/hiring', 'http://10.0.0.5:3000', 'https://API.example.org']);

  it('keeps the configured address a request came through', () => {
    expect(links.for('10.0.0.5:3000')).toBe('http://10.0.0.5:3000');
    expect(links.for('api.example.org')).toBe('https://API.example.org');
    expect(links.for('API.EXAMPLE.COM')).toBe('https://api.example.com/hiring');
  });

  it('answers a Host it was not configured with on the first configured address', () => {
    for (const host of ['evil.example', 'api.example.com.evil.example', '10.0.0.5:3001', 'evil.example/path', 'user@10.0.0.5:3000', '', '%%', undefined]) {
      expect(links.for(host)).toBe('https://api.example.com/hiring');
    }
  });

  it('serves the local addresses of PORT when API_URL is unset, the first of a list otherwise', () => {
    const local = new LinkBase(loadConfig({ PORT: '4321' }).apiUrls);
    expect(local.for('127.0.0.1:4321')).toBe('http://127.0.0.1:4321');
    expect(local.for('[::1]:4321')).toBe('http://[::1]:4321');
    expect(local.for('evil.example')).toBe('http://localhost:4321');
    expect(loadConfig({ API_URL: ' https://a.example/ , http://b.example:8080 ' }).apiUrls).toEqual(['https://a.example', 'http://b.example:8080']);
  });

  it('refuses an API_URL that is not a list of http(s) addresses', () => {
    for (const value of ['ftp://a.example', 'https://a.example/?x=1', 'not a url', 'https://user:pw@a.example']) {
      expect(() => loadConfig({ API_URL: value })).toThrow(/API_URL/);
    }
  });
});
