import type { AssessmentDocument } from '#read-models';
import { csrfField, facts, modeBadge } from '../shared/components.js';
import { html, type Html } from '../shared/html.js';
import type { PageShape } from '../shared/layout.js';
import type { PageContext } from '../shared/page-context.js';
import { statusBadge } from '../assessments/assessment-list.view.js';

const personFields = (required: boolean): Html => html`<div class="form-grid">
<div class="field"><label for="reg-email">E-mail${required ? '' : html` <span class="muted">(sign-up link only)</span>`}</label><input id="reg-email" name="email" type="email" autocomplete="off"${required ? html` required` : ''} placeholder="ada@example.com"></div>
<div class="field"><label for="reg-first">First name <span class="muted">(optional)</span></label><input id="reg-first" name="firstName" type="text" maxlength="255" autocomplete="off"></div>
<div class="field"><label for="reg-surname">Surname <span class="muted">(optional)</span></label><input id="reg-surname" name="surname" type="text" maxlength="255" autocomplete="off"></div>
</div>`;

export const simulatorHomePage = (context: PageContext): PageShape => ({
  title: 'Simulator',
  section: 'simulator',
  lead: 'Plays the candidate for a demo: register from a link, start, finish each test, then unlock the results as the recruiter. Each step is what the real application does, through the same commands.',
  body: html`<div class="grid">
<section class="card" aria-labelledby="register-link"><div class="card-head"><h2 id="register-link">Register from a link</h2></div>
<form method="post" action="/simulator/registrations" class="stack">
${csrfField(context)}
<div class="field"><label for="reg-link">Invitation link or public sign-up link</label><input id="reg-link" name="link" type="url" required placeholder="http://localhost:3100/invitations/…" aria-describedby="reg-link-hint">
<p class="hint" id="reg-link-hint">A personal invitation link (from the e-mail) registers the invited person; a sign-up link (<code>inviteUrl</code>) needs an address and makes a live candidate.</p></div>
${personFields(false)}
<div class="row"><button type="submit" class="button primary">Register</button></div>
</form></section>
<section class="card" aria-labelledby="find-candidate"><div class="card-head"><h2 id="find-candidate">Open a candidate</h2></div>
<form method="get" action="/simulator/candidate" class="form-row">
<div class="field"><label for="candidate-id">Candidate id</label><input id="candidate-id" name="id" type="text" required placeholder="cand_…"></div>
<button type="submit" class="button">Open</button>
</form>
<p class="hint">Or find the invitation e-mail in <a href="/emails">E-mails</a> and follow its link, or open an assessment from its workspace.</p>
</section></div>`,
});

/** The page a personal invitation link or a sign-up link opens: who or what it is for, and one button. */
export const linkPage = (context: PageContext, options: { kind: 'invitation' | 'invite'; link: string; assessment: AssessmentDocument | null; invitedEmail: string | null; invitedMode: string | null }): PageShape => ({
  title: options.kind === 'invitation' ? 'Invitation' : 'Sign up',
  section: 'simulator',
  trail: [{ label: 'Simulator', href: '/simulator' }],
  lead: options.kind === 'invitation'
    ? 'A personal invitation link, as the candidate opens it from the e-mail.'
    : 'The public sign-up link of an assessment: anyone with it registers as a live candidate.',
  body: html`<section class="card" aria-labelledby="link-facts">
<div class="card-head"><h2 id="link-facts">${options.assessment?.name ?? 'Unknown assessment'}</h2>${options.assessment ? statusBadge(options.assessment.status) : ''}</div>
${facts([
    ...(options.invitedEmail ? [['Invited address', options.invitedEmail] as [string, Html | string]] : []),
    ...(options.invitedMode ? [['Mode', modeBadge(options.invitedMode)] as [string, Html | string]] : []),
    ...(options.assessment ? [['Tests', options.assessment.tests.map((test) => test.name).join(', ')] as [string, string]] : []),
  ])}
<p class="label">Link</p><p><code class="wrap">${options.link}</code></p>
<form method="post" action="/simulator/registrations" class="stack">
${csrfField(context)}
<input type="hidden" name="link" value="${options.link}">
${options.kind === 'invite' ? personFields(true) : ''}
<div class="row"><button type="submit" class="button primary">${options.kind === 'invitation' ? 'Accept and register' : 'Sign up'}</button></div>
</form>
</section>`,
});
