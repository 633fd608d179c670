import type { OutboxEmail } from '#messaging';
import { parseLink } from '#domain';
import { timeOf } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';

const URL_PATTERN = /https?:\/\/[^\s<>"']+/g;

/** Links of this service open here (in the simulator), whatever host APP_URL names. */
const linkTarget = (url: string, appUrl: string): string => {
  const ours = parseLink(url, 'invitation', appUrl) ?? parseLink(url, 'invite', appUrl);
  if (!ours) return url;
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
};

/** The e-mail's text, with its addresses as links; the text itself is escaped like any other value. */
export const linkedText = (text: string, appUrl: string): Html => {
  const parts: Html[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    const start = match.index ?? 0;
    parts.push(html`${text.slice(last, start)}`, html`<a href="${linkTarget(match[0], appUrl)}">${match[0]}</a>`);
    last = start + match[0].length;
  }
  parts.push(html`${text.slice(last)}`);
  return html`${parts}`;
};

export const outboxPage = (address: string, emails: OutboxEmail[] | null, appUrl: string): PageShape => ({
  title: 'E-mails',
  section: 'emails',
  lead: 'Every e-mail the service sends is kept here, SMTP or not. Invitation links open the simulator.',
  body: html`<section class="card" aria-labelledby="filter"><h2 id="filter" class="visually-hidden">Filter</h2>
<form method="get" action="/emails" class="form-row">
<div class="field"><label for="to">Recipient address</label><input id="to" name="to" type="search" value="${address}" placeholder="ada@example.com" autocomplete="off"></div>
<button type="submit" class="button primary">Show</button>${address ? html`<a class="button quiet" href="/emails">All recent</a>` : ''}
</form></section>
<section aria-labelledby="emails-title"><h2 id="emails-title">${address ? html`To ${address}` : 'Latest e-mails'}${emails ? html` <span class="muted">(${emails.length})</span>` : ''}</h2>
${emails === null
    ? html`<p class="note warn">The messaging side is not running in this process: the outbox cannot be read here.</p>`
    : emails.length === 0
      ? html`<p class="empty">No e-mail${address ? ' to this address' : ' yet'}.</p>`
      : emails.map((email) => html`<article class="email" aria-label="${email.subject}">
<div class="test-head"><h3>${email.subject}</h3>${timeOf(email.sentAt)}</div>
<p class="meta"><span>to <a href="/emails?to=${encodeURIComponent(email.to)}">${email.to}</a></span><span class="mono">${email.id}</span></p>
<pre>${linkedText(email.text, appUrl)}</pre>
</article>`)}
</section>`,
});
