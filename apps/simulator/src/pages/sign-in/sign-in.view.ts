import { html, type Html } from '../shared/html.js';
import { bareLayout } from '../shared/layout.js';

export const signInPage = (options: { next: string; error: string | null; tokenGenerated: boolean }): Html => bareLayout('Sign in', html`<div class="panel narrow">
<h1>Sign in</h1>
<p class="muted">The internal application: workspaces, keys, the demo simulator and the audit trail.</p>
${options.error ? html`<div class="flash error" role="alert" id="sign-in-error">${options.error}</div>` : ''}
<form method="post" action="/sign-in" class="stack">
<input type="hidden" name="next" value="${options.next}">
<input type="text" name="username" value="internal" autocomplete="username" hidden>
<div class="field">
<label for="token">Internal token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus${options.error ? html` aria-invalid="true" aria-describedby="sign-in-error"` : ''}>
<p class="hint">${options.tokenGenerated ? 'Generated at start and printed in the start banner (set INTERNAL_TOKEN to keep one).' : 'The value of INTERNAL_TOKEN.'}</p>
</div>
<button type="submit" class="button primary wide">Sign in</button>
</form>
</div>`);
