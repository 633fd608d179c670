import 'reflect-metadata';
import { ApiModule } from '../../api/src/api.module.js';
import { SimulatorModule } from '../../simulator/src/simulator.module.js';
import { DataDirInUseError } from '../../../libs/event-store/src/index.js';
import { loadConfig } from '../../../libs/platform/src/config/config.js';
import { createLogger } from '../../../libs/platform/src/logging/logger.js';
import { createInfrastructure } from '../../../libs/runtime/src/create-infrastructure.js';
import { ensureDemoWorkspace } from '../../../libs/runtime/src/demo-workspace.js';
import { startHttpApp } from '../../../libs/runtime/src/http-apps.js';
import { printBanner } from './banner.js';

/** `npm start`: the whole service in one process (API, internal app, projections, workers). */
const main = async (): Promise<void> => {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'standalone');
  const infra = await createInfrastructure(config, logger, { runProjections: true });
  const api = await startHttpApp(infra, ApiModule, { port: config.port, altBasePath: config.altBasePath, legacy: true, name: 'api' });
  const internal = await startHttpApp(infra, SimulatorModule, { port: config.internalPort, altBasePath: '', legacy: false, name: 'internal' });
  const demo = process.env.DEMO_WORKSPACE === 'false' ? null : await ensureDemoWorkspace(infra, internal);
  printBanner(config, demo);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await api.close();
    await internal.close();
    await infra.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
};

main().catch((error: unknown) => {
  if (error instanceof DataDirInUseError) {
    process.stderr.write(`\n${error.message}\n\n`);
  } else {
    process.stderr.write(`failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  }
  process.exit(1);
});
