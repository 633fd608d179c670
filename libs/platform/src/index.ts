export * from './config/config.js';
export * from './crypto/secret-box.js';
export * from './crypto/service-secret.js';
export * from './ids/ids.js';
export * from './logging/logger.js';
export * from './clock/clock.js';
export * from './crypto/random-pool.js';
export * from './crypto/aes-gcm.js';
