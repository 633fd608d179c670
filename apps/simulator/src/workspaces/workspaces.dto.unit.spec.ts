import 'reflect-metadata';
import { refused, refusalOf } from '../testing/refusal.js';
import { validatedBody } from '../validation/validated-body.js';
import { CreateCustomTestBody, CreateWorkspaceBody, IssueApiKeyBody, customTestDraft, refuseNonPublicAddress, webhookSettings, workspaceDraft } from './workspaces.dto.js';

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
    [{ name: 'a', freeAllowance: true }, 'freeAllowance must be a whole number from 0'],
    // The allowance has always been judged before the name.
    [{ name: '', freeAllowance: -1 }, 'freeAllowance must be a whole number from 0'],
    [{ freeAllowance: 'x' }, 'freeAllowance must be a whole number from 0'],
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

  // Once the decider's (workspace.decider.spec): the address's shape, whatever DNS says.
  it.each([
    'https://hooks.example.com/a', 'https://hooks.example.com:8443/a?x=1', 'https://8.8.8.8/hook', 'https://[2606:4700::1111]/hook',
  ])('takes the public https address %s', async (url) => {
    expect(await webhookSettings({ url, events: ['testCompleted'] }, false)).toEqual({ url, events: ['testCompleted'] });
  });

  it.each([
    'http://hooks.example.com/a', 'ftp://hooks.example.com/a', '/relative/hook', 'hooks.example.com/a', 'https://user:password@hooks.example.com/a',
    'https://localhost/hook', 'https://api.localhost/hook', 'https://LOCALHOST./hook', 'https://intranet/hook', 'https://printer.local/hook',
    'https://metadata.internal/hook', 'https://127.0.0.1/hook', 'https://2130706433/hook', 'https://10.1.2.3/hook', 'https://172.16.0.1/hook',
    'https://172.31.255.255/hook', 'https://192.168.1.10/hook', 'https://169.254.169.254/latest', 'https://100.64.0.1/hook', 'https://0.0.0.0/hook',
    'https://224.0.0.1/hook', 'https://[::1]/hook', 'https://[::]/hook', 'https://[fd00::1]/hook', 'https://[fe80::1]/hook', 'https://[ff02::1]/hook',
    'https://[::ffff:127.0.0.1]/hook', 'https://[::ffff:10.0.0.1]/hook', 'https://[::ffff:a9fe:a9fe]/hook', 'https://[::127.0.0.1]/hook',
    'https://[64:ff9b::7f00:1]/hook',
  ])('refuses %s where insecure addresses are not allowed', async (url) => {
    expect(await refusalOf(webhookSettings({ url, events: ['testCompleted'] }, false))).toMatchObject({ status: 422, code: 'validation_failed' });
  });

  it.each([undefined, null, 42, '', `https://hooks.example.com/${'a'.repeat(2048)}`, 'ftp://hooks.example.com/a', 'https://user:pw@localhost/hook', 'file:///etc/passwd'])(
    'refuses the url %j even where insecure addresses are allowed',
    async (url) => {
      expect(await refusalOf(webhookSettings({ url, events: ['testCompleted'] }, true))).toMatchObject({ status: 422, code: 'validation_failed' });
    },
  );

  it.each(['http://localhost:4000/hook', 'http://127.0.0.1:8080/hook', 'https://10.0.0.5/hook', 'http://webhook-receiver/hook'])(
    'takes %s where insecure addresses are allowed',
    async (url) => {
      expect(await webhookSettings({ url, events: ['testCompleted'] }, true)).toEqual({ url, events: ['testCompleted'] });
    },
  );

  it.each([[['testCompleted', 'candidateDeleted']], [['TestCompleted']], [[1]]])('refuses the event list %j', async (events) => {
    expect(await refusalOf(webhookSettings({ url: 'https://hooks.example.com/a', events }, true))).toEqual(refused(EVENTS_RULE));
  });

  it('takes all six events', async () => {
    const all = ['candidateCreated', 'candidateInvited', 'assessmentStarted', 'testCompleted', 'assessmentCompleted', 'resultUnlocked'];
    expect(await webhookSettings({ url: 'https://hooks.example.com/a', events: all }, false)).toEqual({ url: 'https://hooks.example.com/a', events: all });
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

describe('refuseNonPublicAddress', () => {
  const resolvesTo = (address: string) => async () => [{ address }];
  const unresolvable = async (): Promise<{ address: string }[]> => [];
  const PUBLIC_HOST = 'url must point at a public host';

  it('refuses a host that is, or resolves now to, a non-public address: before the body\'s other rules, whatever the scheme', async () => {
    expect(await refusalOf(refuseNonPublicAddress({ url: 'http://10.0.0.1/in', events: [] }, false, unresolvable))).toEqual(refused(PUBLIC_HOST));
    expect(await refusalOf(refuseNonPublicAddress({ url: 'https://hooks.example.com/in' }, false, resolvesTo('192.168.1.20')))).toEqual(refused(PUBLIC_HOST));
    expect(await refusalOf(refuseNonPublicAddress({ url: 'ftp://user:pw@127.0.0.1/in' }, false, unresolvable))).toEqual(refused(PUBLIC_HOST));
  });

  it('lets the rest through to the body\'s rules: public or unresolvable hosts, a url that is not text, insecure deployments', async () => {
    await expect(refuseNonPublicAddress({ url: 'https://hooks.example.com/in' }, false, resolvesTo('93.184.216.34'))).resolves.toBeUndefined();
    await expect(refuseNonPublicAddress({ url: 'https://intranet/in' }, false, unresolvable)).resolves.toBeUndefined();
    await expect(refuseNonPublicAddress({ url: 42 }, false, resolvesTo('127.0.0.1'))).resolves.toBeUndefined();
    await expect(refuseNonPublicAddress({}, false, resolvesTo('127.0.0.1'))).resolves.toBeUndefined();
    await expect(refuseNonPublicAddress({ url: 'http://127.0.0.1/in' }, true, resolvesTo('127.0.0.1'))).resolves.toBeUndefined();
  });
});
