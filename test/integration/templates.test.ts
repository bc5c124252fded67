// Templates against the real engine (docs/templates.md): one built from a Dockerfile that installs
// a Debian package runs it through code_execution; what a template must not do is refused with the
// file and line (exit 2) or neutralised; an unknown template is refused everywhere with the known
// ones listed; pools per template hand out ready environments; stale templates are named.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { UserError } from '../../src/errors/index.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerBackend } from '../../src/backends/docker/docker-backend.js';
import { startServer } from '../../src/server/index.js';
import {
  LABEL_TEMPLATE,
  LABEL_TEMPLATE_BASE,
  LABEL_TEMPLATE_SOURCE,
  templateTag,
} from '../../src/templates/template-image.js';
import { imageTags } from '../../src/sandbox/image.js';
import { LABEL_IMAGE } from '../../src/sandbox/labels.js';
import { cli, sourcesDir, type PrintedOutcome } from './cli-helpers.js';
import { bash, useController } from './helpers.js';
import { PROTOCOL_VERSION } from '../../src/sandbox/protocol/index.js';
import { apiErrorOf } from './api-error.js';
import { execResultOf } from '../../src/tools/results.js';

const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
const docker = new DockerBackend(logger);
const controller = useController();
const made: string[] = [];

afterAll(async () => {
  for (const name of made) await docker.images.removeImage(templateTag(name)).catch(() => {});
});

/** A folder holding a Dockerfile with these lines. */
function dockerfileDir(...lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookbox-template-'));
  writeFileSync(join(dir, 'Dockerfile'), lines.join('\n') + '\n');
  return dir;
}

/** `hookbox template build DIR --name NAME`, remembering the name for clean-up. */
async function build(dir: string, name: string) {
  made.push(name);
  return cli('template', 'build', dir, '--name', name);
}

const SQLITE = dockerfileDir(
  '# A template with one Debian package more.',
  'FROM hookbox/sandbox:latest',
  'RUN apt-get update \\',
  ' && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends sqlite3 \\',
  ' && rm -rf /var/lib/apt/lists/*',
  'USER root',
);
const GATE_SOURCES = sourcesDir({ '.agents/hooks.json': '{}' });

describe('a template built from a Dockerfile', () => {
  it('runs the Debian package it installs through code_execution (CLI: build, call, list, rm)', async () => {
    const built = await build(SQLITE, 'it-sqlite');
    expect(built.stderr).toContain('notice: ');
    expect([built.code, built.stdout]).toEqual([
      0,
      expect.stringMatching(/^hookbox\/template:it-sqlite built \(on hookbox\/sandbox:/),
    ]);
    const again = await build(SQLITE, 'it-sqlite');
    expect(again.stdout).toMatch(/^hookbox\/template:it-sqlite up to date/);

    const call = await cli(
      'call',
      '--sources',
      GATE_SOURCES,
      '--template',
      'it-sqlite',
      '--tool',
      'code_execution',
      '--args',
      JSON.stringify({ code: 'sqlite3 :memory: "select 6 * 7"; id -u' }),
      '--json',
    );
    expect([call.code, execResultOf(JSON.parse(call.stdout) as PrintedOutcome).stdout]).toEqual([
      0,
      '42\n1000\n',
    ]);

    const list = await cli('template', 'list', '--json');
    const rows = JSON.parse(list.stdout) as { name: string; state: string }[];
    expect(rows.find((row) => row.name === 'it-sqlite')?.state).toBe('current');
    // The default image reads like every other current template (never "built" for one of them).
    expect(rows.find((row) => row.name === 'default')?.state).toBe('current');
    expect(rows.map((row) => row.name)).toEqual(expect.arrayContaining(['default', 'full']));

    // The library too; then removed, it is unknown.
    const environment = await (await controller()).createEnvironment({ template: 'it-sqlite' });
    try {
      const outcome = await environment.call(bash('command -v sqlite3'));
      expect(execResultOf(outcome).stdout).toBe('/usr/bin/sqlite3\n');
    } finally {
      await environment.delete();
    }
    await expect(cli('template', 'rm', 'it-sqlite')).resolves.toMatchObject({ code: 0 });
    const gone = await cli('template', 'rm', 'it-sqlite');
    expect([gone.code, gone.stderr]).toEqual([
      2,
      expect.stringContaining('no template "it-sqlite"'),
    ]);
  });
});

describe('what a template must not do', () => {
  const refused: [string, string[], RegExp][] = [
    [
      'ENTRYPOINT',
      ['FROM hookbox/sandbox:latest', 'RUN true', 'ENTRYPOINT ["/bin/sh"]'],
      /Dockerfile:3: ENTRYPOINT is not allowed in a template/,
    ],
    [
      'a VOLUME over /.agents',
      ['FROM hookbox/sandbox:latest', 'VOLUME /.agents'],
      /Dockerfile:2: VOLUME is not allowed in a template.*\/\.agents/,
    ],
    [
      'a HEALTHCHECK',
      ['FROM hookbox/sandbox:latest', 'HEALTHCHECK CMD true'],
      /Dockerfile:2: HEALTHCHECK/,
    ],
    [
      'LD_PRELOAD',
      ['FROM hookbox/sandbox:latest', 'ENV A=1 LD_PRELOAD=/x.so'],
      /Dockerfile:2: ENV LD_PRELOAD is not allowed/,
    ],
    [
      'a missing FROM',
      ['# nothing', 'RUN true'],
      /Dockerfile:2: a template's Dockerfile must start with FROM \(e\.g\. `FROM hookbox\/sandbox:latest`\), not RUN/,
    ],
    [
      'an empty Dockerfile',
      ['# nothing'],
      /Dockerfile: a template's Dockerfile must start with FROM.*no FROM line/,
    ],
    [
      'a content tag instead of the alias',
      ['FROM hookbox/sandbox:0123456789ab'],
      /Dockerfile:1: FROM hookbox\/sandbox:0123456789ab: name the sandbox image by its alias/,
    ],
    [
      'a RUN that fails (its line, after an ARG before FROM)',
      [
        'ARG GREETING=hi',
        'FROM hookbox/sandbox:latest',
        'RUN true',
        'RUN echo "$GREETING" && exit 3',
      ],
      /Dockerfile:4: RUN failed: .*returned a non-zero code: 3/s,
    ],
    [
      'removing the hook user and opening /opt/hookbox',
      ['FROM hookbox/sandbox:latest', 'RUN userdel hook && chmod 0755 /opt/hookbox'],
      /the image breaks what the sandbox needs:\n {2}user hook \(uid 1001\) is missing\n {2}\/opt\/hookbox is 0:0 0o755, must be 0:0 0o700/,
    ],
    [
      'an agent of another protocol',
      [
        'FROM hookbox/sandbox:latest',
        `RUN sed -i 's/"protocol_version": ${PROTOCOL_VERSION},/"protocol_version": 0,/' /opt/hookbox/agent/protocol.schema.json`,
      ],
      new RegExp(
        `fails the sandbox's checks:\\n {2}its sandbox agent speaks protocol 0, this hookbox ${PROTOCOL_VERSION}`,
      ),
    ],
  ];
  it.each(refused)(
    '%s is refused with the file and line, exit 2',
    async (_what, lines, message) => {
      const dir = dockerfileDir(...lines);
      const result = await build(dir, 'it-refused');
      expect([result.code, result.stderr]).toEqual([2, expect.stringMatching(message)]);
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
      // Nothing usable was left behind under that name.
      expect(await docker.images.inspectImage(templateTag('it-refused'))).toBeUndefined();
    },
  );

  it('a name with bad characters, a missing folder: exit 2 naming the field', async () => {
    const bad = await cli('template', 'build', SQLITE, '--name', 'My/Template');
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringContaining('--name "My/Template": a template name is'),
    ]);
    const missing = await cli('template', 'build', '/nonexistent/folder', '--name', 'x');
    expect([missing.code, missing.stderr]).toEqual([
      2,
      expect.stringContaining('/nonexistent/folder: no such file'),
    ]);
  });
});

describe('choosing a template', () => {
  it('an unknown one is refused before anything is made, listing the known ones', async () => {
    const error = await (
      await controller()
    )
      .createEnvironment({ template: 'no-such-template' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toMatch(
      /^template: unknown template "no-such-template"; known templates: default, full/,
    );
    const call = await cli(
      'call',
      '--sources',
      GATE_SOURCES,
      '--template',
      'nope',
      '--tool',
      'code_execution',
      '--args',
      '{"code":"true"}',
    );
    expect([call.code, call.stderr]).toEqual([
      2,
      expect.stringContaining(
        '--template: unknown template "nope"; known templates: default, full',
      ),
    ]);
  });

  it('HTTP: environment.template picks it; an unknown one is a 400 that lists the known ones', async () => {
    const server = await startServer({
      host: '127.0.0.1',
      port: 0,
      logger,
      controller: await Controller.start({
        logger,
        home: mkdtempSync(join(tmpdir(), 'hookbox-template-server-')),
        startEngine: false,
      }),
    });
    try {
      const post = (environment: unknown) =>
        fetch(`${server.url}/v1beta/interactions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            agent: 'scripted',
            input: [
              { type: 'code_execution_call', arguments: { code: 'node -e "console.log(6*7)"' } },
            ],
            environment,
          }),
        });
      const unknown = await post({ type: 'remote', template: 'nope' });
      expect(unknown.status).toBe(400);
      const error = apiErrorOf(await unknown.json());
      expect(error.field).toBe('environment.template');
      expect(error.message).toMatch(
        /^environment\.template: unknown template "nope"; known templates: default, full/,
      );
      const ok = await post({ type: 'remote', template: 'default' });
      const interaction = (await ok.json()) as {
        status: string;
        steps: { type: string; result?: string }[];
      };
      expect(interaction.status).toBe('completed');
      expect(
        JSON.stringify(interaction.steps.find((step) => step.type === 'code_execution_result')),
      ).toContain('42\\n');
    } finally {
      await server.close();
    }
  });
});

describe('pools per template', () => {
  it('hands out a ready environment of the template it was asked for', async () => {
    const built = await build(
      dockerfileDir('FROM hookbox/sandbox:latest', 'RUN echo pooled > /etc/template-marker'),
      'it-pooled',
    );
    expect(built.code).toBe(0);
    const pooled = await Controller.start({
      logger,
      home: mkdtempSync(join(tmpdir(), 'hookbox-pools-')),
      pools: { 'it-pooled': { size: 1 } },
    });
    try {
      await pooled.pools.get('it-pooled')!.waitUntilReady(1);
      expect(pooled.pool).toBeUndefined(); // no default pool was asked for
      const asked = new Date();
      const environment = await pooled.createEnvironment({ template: 'it-pooled' });
      const info = await docker.docker.getContainer(environment.sandbox.containerId).inspect();
      // Made before it was asked for: it came from the pool, and from the template's image.
      expect(new Date(info.Created).getTime()).toBeLessThan(asked.getTime());
      expect(info.Config.Image).toBe(templateTag('it-pooled'));
      const outcome = await environment.call(bash('cat /etc/template-marker'));
      expect(execResultOf(outcome).stdout).toBe('pooled\n');
    } finally {
      await pooled.close();
    }
  });
});

describe('upgrades', () => {
  it('a template built on another sandbox image is stale: named by doctor, refused, rebuilt', async () => {
    const source = dockerfileDir(
      'FROM hookbox/sandbox:latest',
      'RUN echo rebuilt > /etc/template-marker',
    );
    const image = (await controller()).image;
    // A template as an older hookbox would have left it: built on a sandbox image that is gone.
    const tar = await import('tar-stream');
    const archive = tar.pack();
    archive.entry({ name: 'Dockerfile' }, `FROM ${image}\n`);
    archive.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of archive) chunks.push(chunk as Buffer);
    made.push('it-stale');
    await docker.images.buildImage(
      Buffer.concat(chunks),
      templateTag('it-stale'),
      {},
      {
        [LABEL_IMAGE]: 'template',
        [LABEL_TEMPLATE]: 'it-stale',
        [LABEL_TEMPLATE_BASE]: 'hookbox/sandbox:000000000000',
        [LABEL_TEMPLATE_SOURCE]: join(source, 'Dockerfile'),
      },
    );
    const doctor = await cli('doctor');
    expect(doctor.stdout).toContain(
      '! template it-stale is stale (built on hookbox/sandbox:000000000000)',
    );
    const refused = await (
      await controller()
    )
      .createEnvironment({ template: 'it-stale' })
      .catch((caught: unknown) => caught);
    expect((refused as UserError).code).toBe('conflict');
    expect((refused as UserError).message).toContain(
      `rebuild it with \`hookbox template build ${join(source, 'Dockerfile')} --name it-stale\``,
    );
    // The command the message gave (`--stale` would rebuild every stale template on the engine).
    const rebuilt = await cli(
      'template',
      'build',
      join(source, 'Dockerfile'),
      '--name',
      'it-stale',
    );
    expect([rebuilt.code, rebuilt.stdout]).toEqual([
      0,
      expect.stringContaining('hookbox/template:it-stale built'),
    ]);
    expect((await cli('doctor')).stdout).toContain('✔ template it-stale (current)');
  });
});

describe('a template on another Debian base', () => {
  it(
    "gets hookbox's agent layer on top, and works like any other",
    { timeout: 900_000 },
    async () => {
      // hookbox's own debootstrapped base: a plain Debian image, present without any registry.
      const dir = dockerfileDir(
        `FROM ${imageTags().base}`,
        'RUN echo other-base > /etc/template-marker',
      );
      const built = await build(dir, 'it-other-base');
      expect([built.code, built.stdout]).toEqual([
        0,
        expect.stringMatching(/^hookbox\/template:it-other-base built/),
      ]);
      const environment = await (
        await controller()
      ).createEnvironment({ template: 'it-other-base' });
      try {
        const outcome = await environment.call(
          bash('cat /etc/template-marker; id -u; find / -xdev -perm /6000 -type f | wc -l'),
        );
        expect(execResultOf(outcome).stdout).toBe('other-base\n1000\n0\n');
      } finally {
        await environment.delete();
      }
    },
  );
});

describe('fixtures (hookbox test)', () => {
  it('run their cases on the template they name; an unknown one is an invalid fixture', async () => {
    const built = await build(
      dockerfileDir('FROM hookbox/sandbox:latest', 'RUN echo fixture > /etc/template-marker'),
      'it-fixture',
    );
    expect(built.code).toBe(0);
    const fixture = (template: string) =>
      [
        'name: on-a-template',
        `template: ${template}`,
        'sources: {inline: [{target: .agents/hooks.json, content: "{}"}]}',
        'cases:',
        '  - name: sees the template',
        '    call: {name: code_execution, args: {code: "cat /etc/template-marker"}}',
        '    expect: {blocked: false, exit_code: 0, stdout: {exact: "fixture\\n"}}',
      ].join('\n') + '\n';
    const dir = mkdtempSync(join(tmpdir(), 'hookbox-fixture-'));
    writeFileSync(join(dir, 'good.yaml'), fixture('it-fixture'));
    writeFileSync(join(dir, 'bad.yaml'), fixture('no-such-template'));
    const good = await cli('test', join(dir, 'good.yaml'));
    expect([good.code, good.stdout]).toEqual([0, expect.stringContaining('1 passed, 0 failed')]);
    const bad = await cli('test', join(dir, 'bad.yaml'));
    expect([bad.code, bad.stderr]).toEqual([
      2,
      // The file as the CLI names it (relative to where it runs, which CI chooses).
      expect.stringMatching(/bad\.yaml: template: unknown template "no-such-template"/),
    ]);
  });
});
