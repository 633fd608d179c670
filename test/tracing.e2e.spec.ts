import { createServer, type Server } from 'node:http';
import { jest } from '@jest/globals';
import { freeLoopbackPort } from '#platform';
import { requestSpanIdOf, traceIdOf } from '#runtime/observability/tracing.js';
import { api, internal } from './support/client.js';
import { createAssessment } from './support/core-helpers.js';
import { eventually } from './support/messaging-receivers.js';
import { startService, type RunningService } from './support/service.js';

jest.setTimeout(120_000);

interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: { key: string; value: Record<string, unknown> }[] }

/**
 * OpenTelemetry traces over OTLP/HTTP to a collector of the test's own: one invitation is followed
 * through its request, its command, its append, the catch-up projection and its webhook attempt, all
 * in the request's trace, and no span carries anything personal.
 */
describe('traces (e2e, OTLP over HTTP)', () => {
  let collector: Server;
  let hooks: Server;
  let service: RunningService;
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];

  beforeAll(async () => {
    const collectorPort = await freeLoopbackPort();
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      req.on('end', () => {
        bodies.push(body);
        const message = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const resource of message.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    }).listen(collectorPort, '127.0.0.1');
    const hooksPort = await freeLoopbackPort();
    hooks = createServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); }).listen(hooksPort, '127.0.0.1');
    service = await startService({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}`, WEBHOOK_ALLOW_INSECURE: 'true', INLINE_PROJECTIONS: 'false', LOG_LEVEL: 'info',
    });
    (globalThis as { hooksUrl?: string }).hooksUrl = `http://127.0.0.1:${hooksPort}/hook/secret-token`;
  });

  afterAll(async () => {
    await service?.stop();
    collector?.close();
    hooks?.close();
  });

  it('follows an invitation from its request through command, append, projection and webhook, with nothing personal in any span', async () => {
    const app = internal(service);
    const ws = await app.workspace();
    const hooksUrl = (globalThis as { hooksUrl?: string }).hooksUrl as string;
    expect((await app.call('PUT', `/internal/workspaces/${ws.id}/webhook`, { url: hooksUrl, events: ['candidateInvited'] })).status).toBe(200);
    const assessment = await createAssessment(service, ws.live, { name: 'Traced' });
    const requestId = `trace-${Date.now().toString(36)}`;
    const person = { email: 'tracy.tracer@example.com', firstName: 'Tracy', surname: 'Tracer' };
    const answer = await api(service, ws.live).post(`/v1/assessments/${assessment.id}/invitations`, { candidates: [person] }, { 'x-request-id': requestId });
    expect(answer.status).toBe(200);

    const traceId = traceIdOf(requestId);
    const names = (list: OtlpSpan[]) => list.map((span) => span.name);
    const ofTrace = await eventually(async () => spans.filter((span) => span.traceId === traceId),
      (list) => ['POST /v1/assessments/:assessmentId/invitations', 'command InviteCandidates', 'append', 'projection', 'webhook attempt'].every((name) => names(list).includes(name)),
      30_000, 'the spans of the invitation');
    const root = ofTrace.find((span) => span.name === 'POST /v1/assessments/:assessmentId/invitations')!;
    expect(root.spanId).toBe(requestSpanIdOf(requestId));
    expect(root.parentSpanId ?? '').toBe('');
    for (const span of ofTrace.filter((candidate) => candidate !== root)) expect({ name: span.name, parent: span.parentSpanId }).toEqual({ name: span.name, parent: root.spanId });
    const attribute = (span: OtlpSpan, key: string) => span.attributes?.find((entry) => entry.key === key)?.value;
    expect(attribute(root, 'http.response.status_code')).toEqual({ intValue: 200 });
    expect(attribute(ofTrace.find((span) => span.name === 'webhook attempt')!, 'hiring.webhook.outcome')).toEqual({ stringValue: 'succeeded' });

    // Nothing personal anywhere in what was exported: no address, name, webhook URL or its token.
    const exported = bodies.join('\n');
    for (const secret of [person.email, person.firstName, person.surname, 'example.com', hooksUrl, 'secret-token']) expect(exported).not.toContain(secret);
  });
});
