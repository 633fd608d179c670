import { API_VERSION, type ServiceConfig, serviceVersion } from '#platform';
import type { DemoWorkspace } from '#runtime/demo-workspace.js';

/** Where Redis is, without a password a URL may carry. */
const redisShown = (config: ServiceConfig): string => {
  if (config.redis.kind === 'sentinel') return `through Sentinel ${config.redis.sentinels.map(({ host, port }) => `${host}:${port}`).join(',')} (master ${config.redis.name})`;
  try {
    const url = new URL(config.redis.url);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return 'REDIS_URL (not a URL this banner can show)';
  }
};

/** What a newcomer needs after `npm start`: where things are, the keys, and one request to try. */
export const printBanner = (config: ServiceConfig, demo: DemoWorkspace | null): void => {
  const publicUrl = `http://localhost:${config.port}`;
  const lines = [
    '',
    `Hiring-test API ${serviceVersion()} is running (embedded store in ${config.dataDir})`,
    `  Versions          release ${serviceVersion()}, API ${API_VERSION} (the OpenAPI document's info.version)`,
    '',
    `  Public API        ${publicUrl}/v1   (also under ${publicUrl}${config.altBasePath}/v1)`,
    `  API docs          ${publicUrl}/docs   (OpenAPI 3.1: ${publicUrl}/openapi.json)`,
    `  Internal app      http://localhost:${config.internalPort}/internal`,
    `  Web pages         http://localhost:${config.internalPort}/   (sign in with the internal token)`,
    `  Redis             ${redisShown(config)}, queues under ${config.queuePrefix}   (one Redis may serve several services: each store has its own prefix, QUEUE_PREFIX sets it)`,
    // Printed only when generated: nobody else knows it then. A token set by the operator is theirs
    // already, and a start banner ends up in logs and terminal scroll-back where it must not be.
    config.internalTokenGenerated
      ? `  Internal token    ${config.internalToken}   (generated: set INTERNAL_TOKEN to keep one)`
      : '  Internal token    the value of INTERNAL_TOKEN (not printed)',
  ];
  if (demo) {
    lines.push(
      '',
      `  Demo workspace    ${demo.workspaceId}`,
      `  Live key          ${demo.live.key}:${demo.live.secret}`,
      `  Sandbox key       ${demo.sandbox.key}:${demo.sandbox.secret}`,
      '',
      'Try it:',
      `  curl -H "Authorization: Bearer ${demo.live.key}:${demo.live.secret}" ${publicUrl}/v1/me`,
      `  curl -H "Authorization: Bearer ${demo.sandbox.key}:${demo.sandbox.secret}" "${publicUrl}/v1/tests?type=programming"`,
    );
  }
  lines.push('', 'Guides: docs/README.md   Stop: Ctrl-C', '');
  process.stdout.write(lines.join('\n') + '\n');
};
