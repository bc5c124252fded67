// docs/templates.md, "How a template is checked": a template may not ship what would load files tool
// code controls into hook interpreters or the root agent: /etc/ld.so.preload, a sitecustomize.py or
// usercustomize.py that is not Debian's own, a .pth file that runs code or names a writable place,
// or a symlink from the read-only root into /workspace or /tmp. Each is named in the refusal (exit
// 2). The default image passes the same check with every template built on it, and the shipped
// `full` template (Debian's sitecustomize.py, setuptools' distutils-precedence.pth) whenever it is
// built (hooks-workspace-code.test.ts uses it).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { templateTag } from '../../src/templates/template-image.js';
import { cli } from './cli-helpers.js';

const docker = new DockerContainerClient(createLogger({ level: 'silent' }));
const NAME = 'it-startup-files';

afterAll(async () => {
  await docker.removeImage(templateTag(NAME)).catch(() => {});
});

function dockerfileDir(...lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-template-'));
  writeFileSync(join(dir, 'Dockerfile'), lines.join('\n') + '\n');
  return dir;
}

const SITE = '/usr/lib/python3/dist-packages';

describe('the template check refuses start-up files that lead to tool code', () => {
  it('names each: ld.so.preload, usercustomize.py, a changed sitecustomize.py, .pth files, links into /workspace and /tmp', async () => {
    const dir = dockerfileDir(
      'FROM hookbox/sandbox:latest',
      `RUN echo 'import os' > ${SITE}/runs-code.pth \\`,
      ` && echo /workspace/lib > ${SITE}/workspace-path.pth \\`,
      ` && echo /usr/share/plain > ${SITE}/plain-path.pth \\`,
      " && echo 'print(1)' > /usr/local/lib/python3.11/dist-packages/usercustomize.py \\",
      " && echo 'import sys' >> /etc/python3.11/sitecustomize.py \\",
      ' && ln -s /workspace/tools/jq /usr/local/bin/jq \\',
      ' && ln -s ../../tmp/cache /usr/local/cache',
      // Last: every later process would print the loader's complaint about the missing library.
      'RUN echo /workspace/libhook.so > /etc/ld.so.preload',
    );
    const result = await cli('template', 'build', dir, '--name', NAME);
    expect(result.code).toBe(2);
    const marker = `template ${NAME} fails the sandbox's checks:`;
    expect(result.stderr).toContain(marker);
    // The problems, after the build's progress (which echoes the Dockerfile).
    const problems = result.stderr.slice(result.stderr.indexOf(marker));
    for (const problem of [
      '/etc/ld.so.preload preloads a library into every process',
      "/usr/local/lib/python3.11/dist-packages/usercustomize.py runs at every python start and is not its Debian package's own",
      "/usr/lib/python3.11/sitecustomize.py runs at every python start and is not its Debian package's own",
      `${SITE}/runs-code.pth runs code at every python start`,
      `${SITE}/workspace-path.pth puts /workspace/lib on python's path, a place tool code writes`,
      '/usr/local/bin/jq is a symlink to /workspace/tools/jq, a place tool code writes',
      '/usr/local/cache is a symlink to /tmp/cache, a place tool code writes',
    ])
      expect(problems).toContain(problem);
    // A .pth naming a read-only folder is harmless; Debian's own files are not named.
    expect(problems).not.toContain('plain-path.pth');
    expect(problems).not.toContain('distutils-precedence.pth');
    expect(problems).not.toMatch(/\n\s+at /);
    expect(await docker.inspectImage(templateTag(NAME))).toBeUndefined();
  }, 600_000);
});
