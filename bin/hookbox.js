#!/usr/bin/env node
// Runs the compiled CLI; `npm run setup` (or the demo) builds dist/ first.
import { main } from '../dist/src/cli/main.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
