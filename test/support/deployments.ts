import { freshDatabase } from './processes.js';

/** Where an e2e suite runs the service: the embedded store, or a fresh PostgreSQL database of its own. */
export interface Deployment {
  name: string;
  database(): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
}

/** Both deployments, for `describe.each(DEPLOYMENTS)('… on $name', …)`; `secret` names the service secret of the PostgreSQL one. */
export const deployments = (secret: string): Deployment[] => [
  { name: 'the embedded store (PGlite)', database: async () => ({ env: {}, drop: async () => undefined }) },
  {
    name: 'PostgreSQL',
    database: async () => {
      const database = await freshDatabase();
      return { env: { EVENT_STORE_URL: database.url, SERVICE_SECRET: `${secret}-${Date.now()}` }, drop: database.drop };
    },
  },
];
