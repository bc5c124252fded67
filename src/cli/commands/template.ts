import { UserError } from '../../errors/index.js';
import { defaultLogger } from '../../record/logger.js';
import { DockerContainerClient } from '../../backends/docker/docker-container-client.js';
import { ensureEngine } from '../../backends/docker/engine.js';
import { ensureImage, imageTags } from '../../sandbox/image.js';
import { buildTemplate } from '../../templates/template-build.js';
import {
  checkTemplateName,
  DEFAULT_TEMPLATE,
  findTemplate,
  listTemplates,
  templateTag,
  type TemplateInfo,
} from '../../templates/template-image.js';
import { shippedTemplates } from '../../templates/templates.js';
import type { CliIo } from '../io.js';

const megabytes = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

/**
 * `hookbox template build [PATH] --name NAME`: builds a template from a folder holding a Dockerfile
 * (or a Dockerfile), checks it, names it `hookbox/template:NAME`; unchanged inputs are not rebuilt.
 * `--stale` rebuilds every template built on an older sandbox image, from the Dockerfile it records.
 */
export async function templateBuildCommand(
  path: string | undefined,
  options: { name?: string; force?: boolean; stale?: boolean; json?: boolean },
  io: CliIo,
): Promise<number> {
  const jobs: { name: string; path: string }[] = [];
  const logger = defaultLogger();
  const client = new DockerContainerClient(logger);
  if (options.stale) {
    if (path !== undefined || options.name !== undefined)
      throw new UserError('invalid_argument', '--stale: give either --stale or PATH --name NAME', {
        details: { field: '--stale' },
      });
  } else {
    if (path === undefined)
      throw new UserError(
        'invalid_argument',
        'PATH: the folder (or Dockerfile) to build is missing',
        {
          details: { field: 'PATH' },
        },
      );
    if (options.name === undefined)
      throw new UserError('invalid_argument', '--name: the template needs a name', {
        details: { field: '--name' },
      });
    checkTemplateName(options.name, '--name');
    if (options.name === DEFAULT_TEMPLATE)
      throw new UserError(
        'invalid_argument',
        '--name "default": that is the sandbox image itself',
        {
          details: { field: '--name' },
        },
      );
    jobs.push({ name: options.name, path });
  }
  await ensureEngine(client, { quiet: true });
  const sandbox = await ensureImage(client, logger, {
    onProgress: (message) => io.stderr(`${message}\n`),
  });
  if (options.stale) {
    const shipped = shippedTemplates();
    for (const template of await listTemplates(client, sandbox))
      if (template.stale)
        jobs.push({ name: template.name, path: shipped[template.name] ?? template.source });
  }
  const results = [];
  for (const job of jobs) {
    const result = await buildTemplate(client, logger, sandbox, {
      name: job.name,
      path: job.path,
      force: options.force ?? false,
      onProgress: (message) => io.stderr(`${message}\n`),
    });
    for (const notice of result.notices) io.stderr(`notice: ${notice}\n`);
    results.push(result);
    if (!options.json)
      io.stdout(
        `${result.template.image} ${result.built ? 'built' : 'up to date'} (on ${result.template.base}, ${megabytes(result.template.sizeBytes)})\n`,
      );
  }
  if (options.json) io.stdout(JSON.stringify(results, null, 2) + '\n');
  else if (jobs.length === 0) io.stdout('no stale templates\n');
  return 0;
}

/** `hookbox template list`: default, the shipped templates and the built ones, with staleness. */
export async function templateListCommand(options: { json?: boolean }, io: CliIo): Promise<number> {
  const client = new DockerContainerClient(defaultLogger());
  const sandbox = imageTags().sandbox;
  const built = await listTemplates(client, sandbox);
  const image = await client.inspectImage(sandbox);
  const rows: (TemplateInfo & { state: string })[] = [
    {
      name: DEFAULT_TEMPLATE,
      image: sandbox,
      base: sandbox,
      stale: false,
      source: 'sandbox-image/',
      sizeBytes: image?.sizeBytes ?? 0,
      created: image?.created ?? '',
      state: image ? 'current' : 'not built (hookbox image build)',
    },
  ];
  const shipped = shippedTemplates();
  for (const name of Object.keys(shipped))
    if (!built.some((template) => template.name === name))
      rows.push({
        name,
        image: templateTag(name),
        base: '',
        stale: false,
        source: shipped[name]!,
        sizeBytes: 0,
        created: '',
        state: 'shipped, built on first use',
      });
  for (const template of built)
    rows.push({ ...template, state: template.stale ? 'stale: rebuild it' : 'current' });
  if (options.json) {
    io.stdout(JSON.stringify(rows, null, 2) + '\n');
    return 0;
  }
  io.stdout('| template | size | state | source |\n| --- | ---: | --- | --- |\n');
  for (const row of rows)
    io.stdout(
      `| ${row.name} | ${row.sizeBytes ? megabytes(row.sizeBytes) : '—'} | ${row.state} | ${row.source} |\n`,
    );
  return 0;
}

/** `hookbox template rm NAME`: removes a built template (a shipped one is built again on next use). */
export async function templateRemoveCommand(name: string, io: CliIo): Promise<number> {
  checkTemplateName(name, 'NAME');
  if (name === DEFAULT_TEMPLATE)
    throw new UserError(
      'invalid_argument',
      'NAME "default": the sandbox image is not a template to remove',
      {
        details: { field: 'NAME' },
      },
    );
  const client = new DockerContainerClient(defaultLogger());
  const found = await findTemplate(client, name, imageTags().sandbox);
  if (!found)
    throw new UserError('not_found', `NAME: no template ${JSON.stringify(name)} is built`, {
      details: { field: 'NAME' },
    });
  await client.removeImage(found.image);
  io.stdout(`removed ${found.image}\n`);
  return 0;
}
