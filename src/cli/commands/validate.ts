import { execa } from 'execa';
import { scriptsNamed } from '../../config/hook-scripts.js';
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { safeParseHooksConfig, type HooksConfig } from '../../config/hooks-config.js';
import { UserError } from '../../errors/index.js';
import { hooksConfigMatcherWarnings } from '../../hooks/matcher-coverage.js';
import { isVocabularyId, VOCABULARY_IDS, type VocabularyId } from '../../tools/registry.js';
import type { CliIo } from '../io.js';

interface Finding {
  level: 'error' | 'warning';
  where: string;
  message: string;
}

/**
 * Where hooks.json is, and the folder that stands for `/.agents` (to find the scripts it names).
 * `misplaced`: a sources folder (not itself `.agents`) with hooks.json at its top, which
 * `hookbox call --sources` refuses (every file must be under .agents/ or workspace/).
 */
function locate(path: string): { hooksFile: string; agentsDir: string; misplaced: boolean } {
  if (!existsSync(path))
    throw new UserError('invalid_argument', `${path} does not exist`, {
      details: { field: 'PATH' },
    });
  if (statSync(path).isFile()) {
    return { hooksFile: path, agentsDir: join(path, '..'), misplaced: false };
  }
  for (const agentsDir of [join(path, '.agents'), path]) {
    const hooksFile = join(agentsDir, 'hooks.json');
    if (existsSync(hooksFile))
      return {
        hooksFile,
        agentsDir,
        misplaced: agentsDir === path && basename(resolve(path)) !== '.agents',
      };
  }
  throw new UserError(
    'invalid_argument',
    `${path}: no hooks.json in it or in its .agents/ folder`,
    { details: { field: 'PATH' } },
  );
}

async function checkScripts(config: HooksConfig, agentsDir: string): Promise<Finding[]> {
  const findings: Finding[] = [];
  const hasPython = (await execa('python3', ['--version'], { reject: false })).exitCode === 0;
  for (const group of config.groups) {
    for (const event of ['pre_tool_execution', 'post_tool_execution'] as const) {
      group[event].forEach((rule) => {
        rule.handlers.forEach((handler, index) => {
          const where = `${rule.path}.hooks[${index}]`;
          if (handler.type === 'http') {
            findings.push({
              level: 'warning',
              where,
              message: `http handlers leave the sandbox only through the egress proxy: the environment's network.allowlist must name ${new URL(handler.url).hostname}, else creation is refused (docs/contract.md §7, docs/network.md)`,
            });
            return;
          }
          for (const script of scriptsNamed(handler.command)) {
            const local = join(agentsDir, script.relative);
            if (!existsSync(local) || lstatSync(local).isSymbolicLink()) {
              findings.push({
                level: 'error',
                where,
                message: `names ${script.inSandbox}, which is not among the sources (looked for ${local})`,
              });
              continue;
            }
            const content = readFileSync(local, 'utf8');
            if (script.first && !content.startsWith('#!')) {
              findings.push({
                level: 'error',
                where,
                message: `runs ${script.inSandbox} directly, but it does not start with "#!" and so will not be executable`,
              });
            } else if (script.first && /^#![^\n]*\r/.test(content)) {
              // The kernel reads the interpreter up to the newline, CR included: "python3\r" is
              // not found, and the hook fails as "not found" at run time.
              findings.push({
                level: 'error',
                where,
                message: `${script.inSandbox}: its "#!" line ends in CR (Windows line endings), so the interpreter it names is not found when it runs; save it with LF line endings`,
              });
            }
          }
        });
      });
    }
  }
  if (hasPython) {
    const pythonScripts = new Set<string>();
    for (const group of config.groups) {
      for (const event of ['pre_tool_execution', 'post_tool_execution'] as const) {
        for (const rule of group[event]) {
          for (const handler of rule.handlers) {
            if (handler.type !== 'command') continue;
            for (const script of scriptsNamed(handler.command)) {
              const local = join(agentsDir, script.relative);
              if (
                existsSync(local) &&
                (local.endsWith('.py') || /^#!.*python/.test(readFileSync(local, 'utf8')))
              )
                pythonScripts.add(local);
            }
          }
        }
      }
    }
    for (const script of pythonScripts) {
      const source = readFileSync(script, 'utf8');
      const check = await execa(
        'python3',
        ['-c', 'import ast,sys; ast.parse(sys.stdin.read(), sys.argv[1])', basename(script)],
        { input: source, reject: false },
      );
      if (check.exitCode !== 0) {
        const last = String(check.stderr).trim().split('\n').slice(-2).join(' ');
        findings.push({ level: 'error', where: script, message: `Python syntax error: ${last}` });
      }
    }
  }
  return findings;
}

function parseVocabulary(value: string | undefined): VocabularyId | undefined {
  if (value === undefined || isVocabularyId(value)) return value;
  throw new UserError(
    'invalid_argument',
    `--vocabulary: must be one of ${VOCABULARY_IDS.join(', ')}`,
    {
      details: { field: '--vocabulary' },
    },
  );
}

/**
 * `hookbox validate PATH [--vocabulary ID]`: a static check of hooks.json and of the scripts it names.
 * Matchers are checked against the vocabulary (or, without one, against every vocabulary): a matcher
 * naming a tool the vocabulary lacks, or a pattern such as `.*_file` that misses some file tools, is a
 * warning; warnings keep exit status 0.
 */
export async function validateCommand(
  path: string,
  options: { json?: boolean; vocabulary?: string },
  io: CliIo,
): Promise<number> {
  const vocabulary = parseVocabulary(options.vocabulary);
  const { hooksFile, agentsDir, misplaced } = locate(path);
  const parsed = safeParseHooksConfig(readFileSync(hooksFile, 'utf8'));
  const placement: Finding[] = misplaced
    ? [
        {
          level: 'error',
          where: '(file)',
          message: `hooks.json is at the top of ${path}, which \`hookbox call --sources ${path}\` refuses (every file of a sources folder is under .agents/ or workspace/): move it and its scripts into ${join(path, '.agents')}/, or validate the .agents folder itself`,
        },
      ]
    : [];
  const findings: Finding[] = placement;
  findings.push(
    ...(parsed.success
      ? [
          ...hooksConfigMatcherWarnings(parsed.config, vocabulary).map((warning): Finding => ({
            level: 'warning',
            ...warning,
          })),
          ...(await checkScripts(parsed.config, agentsDir)),
        ]
      : parsed.problems.map((problem) => ({
          level: 'error' as const,
          where: problem.path,
          message: problem.message,
        }))),
  );
  const errors = findings.filter((finding) => finding.level === 'error');
  if (options.json) {
    io.stdout(
      JSON.stringify({ file: hooksFile, valid: errors.length === 0, findings }, null, 2) + '\n',
    );
  } else {
    for (const finding of findings)
      io.stdout(`${finding.level}: ${hooksFile}: ${finding.where}: ${finding.message}\n`);
    if (errors.length === 0 && parsed.success) {
      const rules = parsed.config.groups.reduce(
        (sum, group) => sum + group.pre_tool_execution.length + group.post_tool_execution.length,
        0,
      );
      io.stdout(`ok: ${hooksFile}: ${parsed.config.groups.length} group(s), ${rules} rule(s)\n`);
    }
  }
  return errors.length === 0 ? 0 : 2;
}
