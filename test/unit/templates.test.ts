// The pure parts of templates (docs/templates.md): reading a Dockerfile, what is refused with its
// line, the alias pinned on its own line, template names, the --pool option, and the protocol
// version the controller expects being the agent's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePoolSpec } from '../../src/cli/commands/serve.js';
import { UserError } from '../../src/errors/index.js';
import {
  checkDockerfile,
  parseDockerfile,
  pinSandboxFrom,
} from '../../src/templates/dockerfile.js';
import { AGENT_PROTOCOL_VERSION } from '../../src/templates/template-check.js';
import { checkTemplateName } from '../../src/templates/template-image.js';

function refusal(text: string): UserError {
  try {
    checkDockerfile(text, 'Dockerfile');
  } catch (error) {
    return error as UserError;
  }
  throw new Error('not refused');
}

describe('parseDockerfile', () => {
  it('joins continued lines, drops comments, keeps the first line of each instruction', () => {
    const text = '# c\nARG A=1\n\nFROM x AS y\nRUN a \\\n  # inside\n  && b\nrun c\n';
    expect(parseDockerfile(text)).toEqual([
      { keyword: 'ARG', args: 'A=1', line: 2 },
      { keyword: 'FROM', args: 'x AS y', line: 4 },
      { keyword: 'RUN', args: 'a && b', line: 5 },
      { keyword: 'RUN', args: 'c', line: 8 },
    ]);
  });

  it('honours the escape directive', () => {
    const text = '# escape=`\nFROM x\nRUN a `\n  b\n';
    expect(parseDockerfile(text).map((i) => [i.keyword, i.args, i.line])).toEqual([
      ['FROM', 'x', 2],
      ['RUN', 'a b', 3],
    ]);
  });
});

describe('checkDockerfile', () => {
  it.each([
    ['FROM hookbox/sandbox:latest\nCMD ["x"]', 2, 'CMD'],
    ['FROM hookbox/sandbox:latest\nENTRYPOINT x', 2, 'ENTRYPOINT'],
    ['FROM hookbox/sandbox:latest\n\nVOLUME ["/workspace"]', 3, 'VOLUME'],
    ['FROM hookbox/sandbox:latest\nHEALTHCHECK NONE', 2, 'HEALTHCHECK'],
    ['FROM hookbox/sandbox:latest\nLABEL "dev.hookbox.managed"=true', 2, 'LABEL'],
    ['FROM hookbox/sandbox:latest\nENV LD_LIBRARY_PATH /x', 2, 'ENV'],
    ['FROM hookbox/sandbox:latest\nENV PYTHONPATH=/x', 2, 'ENV'],
    ['FROM hookbox/sandbox:latest\nONBUILD RUN x', 2, 'ONBUILD'],
    ['RUN x\nFROM hookbox/sandbox:latest', 1, 'RUN'],
  ])('%j is refused at line %i, field %s', (text, line, field) => {
    const error = refusal(text);
    expect(error.code).toBe('invalid_template');
    expect(error.message.startsWith(`Dockerfile:${line}: `)).toBe(true);
    expect(error.details).toMatchObject({ field, line, file: 'Dockerfile' });
  });

  it('only the final stage is checked; USER there is a notice, not a refusal', () => {
    const check = checkDockerfile(
      'FROM debian AS build\nENTRYPOINT x\nFROM hookbox/sandbox:latest\nUSER tool\nENV PATH_EXTRA=1',
      'Dockerfile',
    );
    expect(check.onSandbox).toBe(true);
    expect(check.notices).toEqual([expect.stringMatching(/^Dockerfile:4: USER tool is reset/)]);
  });

  it('another base is the registry path', () => {
    expect(checkDockerfile('FROM ubuntu:24.04\nRUN true', 'Dockerfile').onSandbox).toBe(false);
  });

  it('pins the alias to the content tag on its own line, leaving every other line as it was', () => {
    const text = 'ARG A\nFROM --platform=linux/amd64 \\\n  hookbox/sandbox:latest\nRUN true\n';
    const check = checkDockerfile(text, 'Dockerfile');
    expect(pinSandboxFrom(text, check, 'hookbox/sandbox:abc')).toBe(
      'ARG A\nFROM --platform=linux/amd64 \\\n  hookbox/sandbox:abc\nRUN true\n',
    );
  });
});

describe('names and options', () => {
  it('template names are image tags', () => {
    expect(checkTemplateName('my-tools_2.1')).toBe('my-tools_2.1');
    for (const bad of ['', 'Big', '-x', 'a/b', 'a:b', 'x'.repeat(64)])
      expect(() => checkTemplateName(bad, '--name')).toThrow(/^--name ".*": a template name is/);
  });

  it('--pool default=4,full=1 (a bare number is the default template)', () => {
    expect(parsePoolSpec('default=4,full=1')).toEqual({ default: 4, full: 1 });
    expect(parsePoolSpec('3')).toEqual({ default: 3 });
    expect(() => parsePoolSpec('full=x')).toThrow(/^--pool: "full=x" must be TEMPLATE=N/);
    expect(() => parsePoolSpec('full=101')).toThrow(/--pool/);
  });

  it("the controller expects the agent's protocol version", () => {
    // The agent reads its version from the protocol document the image ships (docs/agent-protocol.md).
    const document = JSON.parse(
      readFileSync(
        new URL('../../sandbox-image/agent/protocol.schema.json', import.meta.url),
        'utf8',
      ),
    ) as { protocol_version: number };
    expect(document.protocol_version).toBe(AGENT_PROTOCOL_VERSION);
  });
});
