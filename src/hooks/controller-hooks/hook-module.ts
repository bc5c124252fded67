import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { UserError } from '../../errors/errors.js';
import type { Hook } from './hook.js';
import { validateHooks } from './hook-validation.js';

/**
 * The hooks an operator's module provides, for `hookbox serve --hooks module.js`: its default export,
 * one hook or a list of hooks. Validated here so that a broken module stops start-up with its file name.
 * @param moduleNamespace what `import()` gave for the module.
 */
export function hooksFromModule(moduleNamespace: unknown, fileName: string): Hook[] {
  const exported = (moduleNamespace as { default?: unknown } | null)?.default;
  if (exported === undefined) {
    throw new UserError(
      'invalid_argument',
      `hook module ${fileName}: has no default export; export a hook or a list of hooks`,
      {
        details: { field: 'default', file: fileName },
      },
    );
  }
  return validateHooks(
    Array.isArray(exported) ? exported : [exported],
    `hook module ${fileName}: default`,
  );
}

/** Imports the module at `path` (relative to the working directory) and returns its hooks. */
export async function loadHookModule(path: string): Promise<Hook[]> {
  let moduleNamespace: unknown;
  try {
    moduleNamespace = await import(pathToFileURL(resolve(path)).href);
  } catch (error) {
    throw new UserError(
      'invalid_argument',
      `cannot load hook module ${path}: ${(error as Error).message}`,
      {
        details: { field: 'hooks', file: path },
        cause: error,
      },
    );
  }
  return hooksFromModule(moduleNamespace, path);
}
