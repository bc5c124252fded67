// The checks a repository source meets before anything is made (docs/environments.md, "Repository
// sources"): pure logic over the request and an allowlist.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors/index.js';
import { Allowlist } from '../../../src/network/allowlist.js';
import { parseCreateEnvironment } from '../../../src/resources/environment-request.js';
import { checkRepositories } from '../../../src/resources/repository-sources.js';

const allowlist = new Allowlist([{ domain: 'github.com' }, { domain: '*.example.com' }]);

function refusal(run: () => unknown): { field: unknown; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return { field: (error as UserError).details.field, message: (error as Error).message };
  }
  throw new Error('not refused');
}

describe('checkRepositories', () => {
  it('defaults the target to workspace/<name>, as git clone would', () => {
    expect(
      checkRepositories(
        [
          { index: 0, url: 'https://github.com/octocat/Hello-World.git' },
          { index: 1, url: 'https://git.example.com/team/tools', target: '/workspace/vendor/t' },
        ],
        ['workspace/notes.txt'],
        allowlist,
      ),
    ).toEqual([
      {
        index: 0,
        url: 'https://github.com/octocat/Hello-World.git',
        target: 'workspace/Hello-World',
      },
      { index: 1, url: 'https://git.example.com/team/tools', target: 'workspace/vendor/t' },
    ]);
  });

  it.each([
    [
      'https://gitlab.com/x/y.git',
      undefined,
      allowlist,
      'sources[3].source',
      /"gitlab\.com" is not in/,
    ],
    ['https://github.com/x/y.git', undefined, undefined, 'sources[3].source', /is not in/],
    ['ssh://github.com/x/y.git', undefined, allowlist, 'sources[3].source', /http:\/\/ or https/],
    ['https://me:tok@github.com/x/y.git', undefined, allowlist, 'sources[3].source', /credentials/],
    ['https://github.com/', undefined, allowlist, 'sources[3].target', /names no folder/],
    ['https://github.com/x/y.git', 'workspace', allowlist, 'sources[3].target', /folder under/],
    ['https://github.com/x/y.git', 'workspace/.agents/y', allowlist, 'sources[3].target', /mirror/],
    ['https://github.com/x/y.git', 'workspace/a/../b', allowlist, 'sources[3].target', /"\.\."/],
    [
      'https://github.com/x/y.git',
      'workspace/notes.txt',
      allowlist,
      'sources[3].target',
      /overlaps/,
    ],
  ] as const)('%s → %s is refused naming %s', (url, target, list, field, message) => {
    const refused = refusal(() =>
      checkRepositories(
        [{ index: 3, url, ...(target !== undefined ? { target } : {}) }],
        ['workspace/notes.txt'],
        list,
      ),
    );
    expect(refused.field).toBe(field);
    expect(refused.message).toMatch(message);
  });

  it('two repositories may not share a folder', () => {
    const refused = refusal(() =>
      checkRepositories(
        [
          { index: 0, url: 'https://github.com/a/lib.git' },
          { index: 1, url: 'https://git.example.com/b/lib.git' },
        ],
        [],
        allowlist,
      ),
    );
    expect(refused).toMatchObject({ field: 'sources[1].target' });
  });
});

describe('parseCreateEnvironment with repositories', () => {
  it('takes repositories out of the inline sources and remembers where each inline one stood', () => {
    const parsed = parseCreateEnvironment({
      sources: [
        { type: 'repository', source: 'https://github.com/x/y.git' },
        { type: 'inline', target: 'workspace/a', content: 'a' },
      ],
    });
    expect(parsed.repositories).toEqual([{ index: 0, url: 'https://github.com/x/y.git' }]);
    expect(parsed.inlineIndices).toEqual([1]);
  });
});
