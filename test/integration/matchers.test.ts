import { beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/controller/environment.js';
import { hooksJson, rule, useController } from './helpers.js';

const controller = useController();
const allow = (label: string) => `echo '{"decision": "allow"}' # ${label}`;

// One group per matcher; a call's hook records say which matchers fired for its tool.
const MATCHERS: Record<string, string | undefined> = {
  exact: 'code_execution',
  alternation: 'read_file|write_file',
  suffix: '.*_file',
  star: '*',
  empty: '',
  dotstar: '.*',
  omitted: undefined,
  partial: 'code',
  prefix_only: 'read',
};

let environment: Environment;
beforeAll(async () => {
  const hooks = Object.fromEntries(
    Object.entries(MATCHERS).map(([label, matcher]) => [
      label,
      { pre_tool_execution: [rule(matcher, allow(label))] },
    ]),
  );
  environment = await (await controller()).createEnvironment({ sources: [hooksJson(hooks)] });
});

const fired = async (name: string, args: Record<string, unknown>) =>
  (await environment.call({ name, args })).hooks.map((hook) => hook.group);

describe('matchers in a real environment', () => {
  it('code_execution: exact, catch-alls; not a partial name', async () => {
    expect(await fired('code_execution', { code: 'true' })).toEqual([
      'exact',
      'star',
      'empty',
      'dotstar',
      'omitted',
    ]);
  });
  it('read_file: alternation, .*_file, catch-alls; not a prefix', async () => {
    expect(await fired('read_file', { path: 'x' })).toEqual([
      'alternation',
      'suffix',
      'star',
      'empty',
      'dotstar',
      'omitted',
    ]);
  });
  it('write_file and delete_file: .*_file fires for both; alternation only for write_file', async () => {
    expect(await fired('write_file', { path: 'x', content: '' })).toEqual([
      'alternation',
      'suffix',
      'star',
      'empty',
      'dotstar',
      'omitted',
    ]);
    expect(await fired('delete_file', { path: 'x' })).toEqual([
      'suffix',
      'star',
      'empty',
      'dotstar',
      'omitted',
    ]);
  });
  it('list_files: .*_file does not fire (the name ends in _files)', async () => {
    expect(await fired('list_files', { path: '.' })).toEqual([
      'star',
      'empty',
      'dotstar',
      'omitted',
    ]);
  });
});
