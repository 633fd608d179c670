/** Injection tokens of the infrastructure every process shares. */
export const EVENT_STORE = Symbol('EVENT_STORE');
export const CLOCK = Symbol('CLOCK');
export const CONFIG = Symbol('CONFIG');
export const READ_SIDE = Symbol('READ_SIDE');
export const LOOKUPS = Symbol('LOOKUPS');
export const SECRET_BOX = Symbol('SECRET_BOX');
export const LOGGER = Symbol('LOGGER');
export const REDIS = Symbol('REDIS');
