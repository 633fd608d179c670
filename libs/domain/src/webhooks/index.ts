export * from './result-view.js';
export * from './webhook-envelope.js';
export * from './webhook-address.js';
