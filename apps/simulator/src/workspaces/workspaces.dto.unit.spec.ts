import 'reflect-metadata';
import { refused, refusalOf } from '../validation/refusal.testing.js';
import { validatedBody } from '../validation/validated-body.js';
import { CreateCustomTestBody, CreateWorkspaceBody, IssueApiKeyBody, customTestDraft, webhookSettings, workspaceDraft } from './workspaces.dto.js';

const NAME_RULE = 'name must be a string of 1 to 200 characters';
const EVENTS_RULE = 'events must be a non-empty list of: candidateCreated, candidateInvited, assessmentStarted, testCompleted, assessmentCompleted, resultUnlocked';

describe('CreateWorkspaceBody', () => {
  it('types a valid body: the name trimmed, the allowance 0 when absent or null', async () => {
    expect(workspaceDraft(await validatedBody(CreateWorkspaceBody, { name: '  Trimmed Co  ' }))).toEqual({ name: 'Trimmed Co', freeAllowance: 0 });
    expect(workspaceDraft(await validatedBody(CreateWorkspaceBody, { name: 'A', freeAllowance: null }))).toEqual({ name: 'A', freeAllowance: 0 });
    expect(workspaceDraft(await validatedBody(CreateWorkspaceBody, { name: 'A', freeAllowance: 3, extra: true }))).toEqual({ name: 'A', freeAllowance: 3 });
  });

  it.each([
    [{}, NAME_RULE], [{ name: '' }, NAME_RULE], [{ name: '   ' }, NAME_RULE], [{ name: 5 }, NAME_RULE], [{ name: 'w'.repeat(201) }, NAME_RULE],
    [{ name: 'W\u0000' }, NAME_RULE], [{ name: 'a', freeAllowance: -1 }, 'freeAllowance must be a whole number from 0'],
    [{ name: 'a', freeAllowance: 1.5 }, 'freeAllowance must be a whole number from 0'], [{ name: 'a', freeAllowance: '3' }, 'freeAllowance must be a whole number from 0'],
    // The name is judged first (the decider judged the allowance first: the message of a body wrong in both changed).
    [{ name: '', freeAllowance: -1 }, NAME_RULE],
  ])('refuses %j with 422 validation_failed', async (body, message) => {
    expect(await refusalOf(validatedBody(CreateWorkspaceBody, body))).toEqual(refused(message));
  });
});

describe('IssueApiKeyBody', () => {
  it('takes live and sandbox', async () => {
    expect((await validatedBody(IssueApiKeyBody, { mode: 'sandbox' })).mode).toBe('sandbox');
    expect((await validatedBody(IssueApiKeyBody, { mode: 'live' })).mode).toBe('live');
  });

  it.each([[{}], [{ mode: 'test' }], [{ mode: 'LIVE' }], [{ mode: null }], [{ mode: ['live'] }]])('refuses %j', async (body) => {
    expect(await refusalOf(validatedBody(IssueApiKeyBody, body))).toEqual(refused('mode must be "live" or "sandbox"'));
  });
});

describe('webhookSettings', () => {
  it('types the address as sent and the events once each, in their canonical order', async () => {
    expect(await webhookSettings({ url: 'https://hooks.example.com/in', events: ['testCompleted', 'candidateInvited', 'testCompleted'] }, false))
      .toEqual({ url: 'https://hooks.example.com/in', events: ['candidateInvited', 'testCompleted'] });
  });

  it.each([
    [{ url: 'http://hooks.example.com/in', events: ['testCompleted'] }, 'url must be an absolute https:// URL'],
    [{ url: 'https://localhost/in', events: ['testCompleted'] }, 'url must point at a public host'],
    [{ url: 'https://10.1.2.3/in', events: ['testCompleted'] }, 'url must point at a public host'],
    [{ url: 'hooks.example.com/in', events: ['testCompleted'] }, 'url must be an absolute https:// URL'],
    [{ url: 'ftp://hooks.example.com/in', events: ['testCompleted'] }, 'url must be an absolute https:// URL'],
    [{ url: 'https://user:pw@hooks.example.com/in', events: ['testCompleted'] }, 'url must not carry credentials'],
    [{ events: ['testCompleted'] }, 'url must be an absolute https:// URL'],
    [{ url: 42, events: ['testCompleted'] }, 'url must be an absolute https:// URL'],
    [{ url: 'https://hooks.example.com/in', events: [] }, EVENTS_RULE],
    [{ url: 'https://hooks.example.com/in', events: ['testFinished'] }, EVENTS_RULE],
    [{ url: 'https://hooks.example.com/in', events: 'testCompleted' }, EVENTS_RULE],
    [{ url: 'https://hooks.example.com/in' }, EVENTS_RULE],
    // The address is judged before the events.
    [{ url: 'ftp://x', events: [] }, 'url must be an absolute https:// URL'],
  ])('refuses %j where insecure addresses are not allowed', async (body, message) => {
    expect(await refusalOf(webhookSettings(body, false))).toEqual(refused(message));
  });

  it('takes http:// and private hosts where insecure addresses are allowed, and nothing but http(s)', async () => {
    expect(await webhookSettings({ url: 'http://127.0.0.1:8080/in', events: ['resultUnlocked'] }, true)).toEqual({ url: 'http://127.0.0.1:8080/in', events: ['resultUnlocked'] });
    expect(await refusalOf(webhookSettings({ url: 'ftp://hooks.example.com/in', events: ['resultUnlocked'] }, true))).toEqual(refused('url must be an http(s):// URL'));
  });
});

describe('CreateCustomTestBody', () => {
  it('types a valid body, the name trimmed', async () => {
    expect(customTestDraft(await validatedBody(CreateCustomTestBody, { name: ' Quiz ', minutes: 15, questionCount: 12 }))).toEqual({ name: 'Quiz', minutes: 15, questionCount: 12 });
  });

  it.each([
    [{}, NAME_RULE], [{ name: '', minutes: 5, questionCount: 5 }, NAME_RULE],
    [{ name: 'a', minutes: 0, questionCount: 5 }, 'minutes must be a whole number from 1 to 600'],
    [{ name: 'a', minutes: 601, questionCount: 5 }, 'minutes must be a whole number from 1 to 600'],
    [{ name: 'a', minutes: '5', questionCount: 5 }, 'minutes must be a whole number from 1 to 600'],
    [{ name: 'a', minutes: 1.5, questionCount: 5 }, 'minutes must be a whole number from 1 to 600'],
    [{ name: 'a', minutes: 5, questionCount: 0 }, 'questionCount must be a whole number from 1 to 1000'],
    [{ name: 'a', minutes: 5, questionCount: 1001 }, 'questionCount must be a whole number from 1 to 1000'],
  ])('refuses %j', async (body, message) => {
    expect(await refusalOf(validatedBody(CreateCustomTestBody, body))).toEqual(refused(message));
  });
});
