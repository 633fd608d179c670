import { api, internal } from './client.js';
import type { RunningService } from './service.js';

export const ALL_EVENTS = ['candidateCreated', 'candidateInvited', 'assessmentStarted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked'] as const;

export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let counter = 0;
export const uniqueEmail = (label: string): string => {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 6)}@example.com`;
};

export const TEST_SLUGS = ['numerical-reasoning', 'verbal-reasoning'] as const;

export const world = (service: RunningService) => {
  const app = internal(service);
  const ok = <T extends { status: number; text: string }>(answer: T, ...statuses: number[]): T => {
    if (!statuses.includes(answer.status)) throw new Error(`unexpected ${answer.status}: ${answer.text}`);
    return answer;
  };
  return {
    app,
    ok,
    async workspace(webhook?: { url: string; events?: readonly string[] }) {
      const created = await app.workspace();
      let secret: string | null = null;
      if (webhook) {
        const saved = ok(await app.call('PUT', `/internal/workspaces/${created.id}/webhook`, { url: webhook.url, events: webhook.events ?? ALL_EVENTS }), 200);
        secret = saved.body.data.secret;
      }
      return { ...created, secret, live: api(service, created.live), sandbox: api(service, created.sandbox), liveCredential: created.live, sandboxCredential: created.sandbox };
    },
    async assessment(client: ReturnType<typeof api>, options: { name?: string; tests?: readonly string[]; deadline?: string | null } = {}) {
      const body: Record<string, unknown> = { name: options.name ?? `Assessment ${Math.random().toString(36).slice(2, 7)}`, tests: options.tests ?? TEST_SLUGS };
      if (options.deadline !== undefined) body.deadline = options.deadline;
      return ok(await client.post('/v1/assessments', body), 201).body.data as { id: string; name: string; inviteUrl: string; tests: { slug: string; name: string; type: string }[]; deadline: string | null };
    },
    async invite(client: ReturnType<typeof api>, assessmentId: string, candidates: unknown[], headers: Record<string, string> = {}) {
      return ok(await client.post(`/v1/assessments/${assessmentId}/invitations`, { candidates }, headers), 200);
    },
    async register(body: unknown) {
      return ok(await app.register(body), 200, 201).body.data as { candidateId: string; assessmentId: string };
    },
    async start(candidateId: string, assessmentId: string) {
      return ok(await app.start(candidateId, assessmentId), 200).body.data;
    },
    async complete(candidateId: string, assessmentId: string, slug: string, scores: Record<string, unknown> = {}) {
      return ok(await app.complete(candidateId, assessmentId, slug, scores), 201).body.data as { resultId: string; assessmentCompleted: boolean };
    },
    async unlock(resultId: string) {
      return ok(await app.unlock(resultId), 200).body.data as { resultId: string; unlockedAt: string; charged: boolean };
    },
    async webhook(workspaceId: string) {
      return ok(await app.call('GET', `/internal/workspaces/${workspaceId}/webhook`), 200).body.data as
        { url: string; events: string[]; secret: string; enabled: boolean; disabledReason: string | null };
    },
    async deliveries(workspaceId: string) {
      return ok(await app.call('GET', `/internal/workspaces/${workspaceId}/webhook-deliveries`), 200).body.data as Delivery[];
    },
    async emails(to: string) {
      return ok(await app.call('GET', `/internal/emails?to=${encodeURIComponent(to)}`), 200).body.data as { id: string; to: string; subject: string; text: string; sentAt: string }[];
    },
    async stream(streamId: string) {
      return ok(await app.call('GET', `/internal/streams/${streamId}`), 200).body.data as { id: string; type: string; data: any; revision: number }[];
    },
  };
};

export interface Attempt {
  at: string;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

export interface Delivery {
  id: string;
  eventId: string;
  event: string;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  attemptLog: Attempt[];
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}
