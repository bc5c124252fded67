'use strict';
// Loaded into every node a hook starts (NODE_OPTIONS=--require=..., sandbox-image/agent/launch.py).
// Hooks start with cwd /workspace, which tool code writes, and `node -e`/`-p` or a script on stdin
// looks for bare module names in the cwd's node_modules: tool code could plant a package there that
// then runs as the hook user. Node has no PYTHONSAFEPATH, so this takes every folder beneath
// /workspace off the module search. Relative and absolute paths still load what they name
// (docs/security.md, "Hooks and the workspace").
const Module = require('node:module');

const WORKSPACE = '/workspace';
const beneathWorkspace = (path) => path === WORKSPACE || path.startsWith(`${WORKSPACE}/`);

const searchPaths = Module._nodeModulePaths;
Module._nodeModulePaths = function nodeModulePathsOutsideWorkspace(from) {
  return searchPaths.call(this, from).filter((path) => !beneathWorkspace(path));
};

// ES modules given as text (`--input-type=module`) resolve bare names from the cwd too; a resolve
// hook refuses a bare name found beneath /workspace. Registered only then: it starts a loader
// thread, which a plain `node script.js` should not pay for.
const inputTypeModule = process.execArgv.some(
  (arg, i, all) =>
    arg === '--input-type=module' || (arg === '--input-type' && all[i + 1] === 'module'),
);
if (inputTypeModule && typeof Module.register === 'function') {
  const hook = `export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  const bare = !/^(\\.{0,2}\\/|[a-z][a-z0-9+.-]*:)/i.test(specifier);
  if (bare && found.url.startsWith('file://${WORKSPACE}/')) {
    const error = new Error("Cannot find package '" + specifier + "' outside ${WORKSPACE} (hooks never load modules from the workspace)");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return found;
}`;
  Module.register(`data:text/javascript,${encodeURIComponent(hook)}`);
}
