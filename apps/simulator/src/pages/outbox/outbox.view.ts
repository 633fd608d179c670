import type { OutboxEmail } from '#messaging';
import { parseLink } from '#domain';
import { timeOf } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';

/**
 * The local path a line of the e-mail opens in the simulator, when the whole line is one link this
 * service issued (the invitation link stands on a line of its own); null for any other text.
 */
const ownLinkTarget = (line: string, appUrl: string): string | null => {
  const candidate = line.trim();
  if (!/^https?:\/\/\S+$/.test(candidate)) return null;
  if (!parseLink(candidate, 'invitation', appUrl) && !parseLink(candidate, 'invite', appUrl)) return null;
  try {
    return new URL(candidate).pathname;
  } catch {
    return null;
  }
};

/**
 * The e-mail's text, escaped like any other value. Only the service's own link becomes a link (to
 * the simulator page it names); an address anywhere else, in a candidate's or an assessment's name
 * say, is the sender's text and stays text: the pages never link to where a sender points them.
 */
export const linkedText = (text: string, appUrl: string): Html => html`${text.split('\n').map((line, index) => {
  const target = ownLinkTarget(line, appUrl);
  const shown = target === null ? html`${line}` : html`<a href="${target}">${line}</a>`;
  return index === 0 ? shown : html`\n${shown}`;
})}`;

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
