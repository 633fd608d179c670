import { createHash } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { type Attributes, ROOT_CONTEXT, SpanKind, TraceFlags, type Tracer, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type IdGenerator, RandomIdGenerator } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import { type StageTraced, TRACE_CHANNEL } from '#platform/instrumentation/channels.js';

const hex = (purpose: string, requestId: string, length: number): string =>
  createHash('sha256').update(`${purpose}:${requestId}`).digest('hex').slice(0, length);

/** The trace of a request, derived from its request id: any process that knows the id joins it. */
export const traceIdOf = (requestId: string): string => hex('trace', requestId, 32);
/** The id of the request's own span, the parent of every other span made for it. */
export const requestSpanIdOf = (requestId: string): string => hex('span', requestId, 16);

/**
 * Random ids, except for the one root span whose ids are set just before it is started (a request's
 * span: its ids are derived from the request id, so the spans of other processes find their parent).
 */
class RequestDerivedIds implements IdGenerator {
  next: { traceId: string; spanId: string } | null = null;
  private readonly random = new RandomIdGenerator();

  // The SDK asks for the span id first, then (for a root span) the trace id: `next` is cleared by the caller.
  generateTraceId(): string {
    return this.next?.traceId ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.next?.spanId ?? this.random.generateSpanId();
  }
}

const STAGE_NAMES: Record<StageTraced['stage'], string> = { append: 'append', projection: 'projection', webhook: 'webhook attempt' };

/**
 * OpenTelemetry traces, only with OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over HTTP). No context is carried: the
 * trace and span ids derive from the request id, which every event's metadata and webhook job holds, so the
 * command, append, projections and webhook attempts, in any process, are children of the request's span,
 * made afterwards from reported times. Nothing personal: route templates, names, counts, outcomes, statuses
 * and the request id; never a query string, an address or a webhook URL.
 */
export class Tracing {
  private readonly ids = new RequestDerivedIds();
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;
  private readonly onStage = (message: unknown): void => {
    const stage = message as StageTraced;
    for (const requestId of stage.requestIds) this.childOf(requestId, STAGE_NAMES[stage.stage], stage.startTime, stage.endTime, stage.attributes);
  };

  private constructor(serviceName: string) {
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': process.env['OTEL_SERVICE_NAME'] ?? serviceName }),
      idGenerator: this.ids,
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 1000 })],
    });
    this.tracer = this.provider.getTracer('hiring-test-platform');
    subscribe(TRACE_CHANNEL.name, this.onStage);
  }

  static start(serviceName: string, logger: Logger): Tracing | null {
    const endpoint = process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    if (!endpoint) return null;
    logger.info({ endpoint: endpoint.replace(/\/\/[^@/]*@/, '//') }, 'sending traces over OTLP');
    return new Tracing(serviceName);
  }

  /** The request's own span (made when its answer has gone), with the ids its children expect. */
  request(requestId: string, name: string, startTime: number, endTime: number, attributes: Attributes): void {
    this.ids.next = { traceId: traceIdOf(requestId), spanId: requestSpanIdOf(requestId) };
    const span = this.tracer.startSpan(name, { kind: SpanKind.SERVER, startTime, attributes: { ...attributes, 'hiring.request_id': requestId }, root: true });
    this.ids.next = null;
    span.end(endTime);
  }

  /** A span of work done for a request, as a child of the request's span. */
  childOf(requestId: string, name: string, startTime: number, endTime: number, attributes: Attributes = {}): void {
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: traceIdOf(requestId), spanId: requestSpanIdOf(requestId), traceFlags: TraceFlags.SAMPLED, isRemote: true,
    });
    this.tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime, attributes: { ...attributes, 'hiring.request_id': requestId } }, parent).end(endTime);
  }

  /** Sends what is buffered and stops. */
  async stop(): Promise<void> {
    unsubscribe(TRACE_CHANNEL.name, this.onStage);
    await this.provider.shutdown().catch(() => undefined);
  }
}
