export * from './errors.js';
export * from './envelope.js';
