import { type DynamicModule, Global, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import {
  CLOCK, CONFIG, EVENT_STORE, EventWriter, LOGGER, LOOKUPS, READ_SIDE, REDIS, RETIRED_API_KEYS, type RetiredApiKeys, SECRET_BOX,
  commandHandlers,
} from '#commands';
import { RedisRateLimiter } from '#http';
import { CURSORS, DOCUMENTS, ERASURE_WINDOW, INFRASTRUCTURE, type Infrastructure } from './infrastructure.js';
import { ErasureWindow } from './personal-data-erasure.js';

/** Hands the process's shared infrastructure to Nest, with the write side (command bus and handlers). */
@Global()
@Module({})
export class CoreModule {
  static forRoot(infra: Infrastructure): DynamicModule {
    const limiter = new RedisRateLimiter(infra.redis, { prefix: 'ratelimit:' });
    const values = [
      { provide: INFRASTRUCTURE, useValue: infra },
      { provide: EVENT_STORE, useValue: infra.eventStore },
      { provide: CLOCK, useValue: infra.clock },
      { provide: CONFIG, useValue: infra.config },
      { provide: READ_SIDE, useValue: infra.readSide },
      { provide: LOOKUPS, useValue: infra.lookups },
      { provide: SECRET_BOX, useValue: infra.secretBox },
      { provide: LOGGER, useValue: infra.logger },
      { provide: REDIS, useValue: infra.redis },
      { provide: DOCUMENTS, useValue: infra.documents },
      { provide: CURSORS, useValue: infra.cursors },
      { provide: ERASURE_WINDOW, useValue: new ErasureWindow(infra.audit.personKeys) },
      // The API takes places from it; the internal application retires regenerated keys on it.
      { provide: RedisRateLimiter, useValue: limiter },
      { provide: RETIRED_API_KEYS, useValue: limiter satisfies RetiredApiKeys },
    ];
    return {
      module: CoreModule,
      imports: [CqrsModule.forRoot()],
      providers: [...values, { provide: EventWriter, useValue: infra.writer }, ...commandHandlers],
      exports: [...values.map((value) => value.provide), EventWriter, CqrsModule],
    };
  }
}
