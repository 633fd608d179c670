export interface InvitationEmailInput {
  to: string;
  firstName: string;
  assessmentName: string;
  /** `YYYY-MM-DD` or null. */
  deadline: string | null;
  invitationUrl: string;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);

// Header injection: a name with a line break must not start a new header line in the subject.
const singleLine = (value: string): string => value.replace(/[\r\n\t]+/g, ' ').trim();

/** The invitation e-mail. Names and the assessment name are the sender's text: escaped in HTML, flattened in the subject. */
export const renderInvitationEmail = (input: InvitationEmailInput): RenderedEmail => {
  const greeting = input.firstName.trim() === '' ? 'Hello,' : `Hello ${singleLine(input.firstName)},`;
  const deadlineLine = input.deadline ? `Please complete it by ${input.deadline}.` : null;
  const subject = `You are invited to take the assessment "${singleLine(input.assessmentName)}"`;
  const text = [
    greeting,
    '',
    `You have been invited to take the assessment "${input.assessmentName}".`,
    ...(deadlineLine ? [deadlineLine] : []),
    '',
    'Start here:',
    input.invitationUrl,
    '',
    'This link is personal: please do not share it.',
  ].join('\n');
  const url = escapeHtml(input.invitationUrl);
  const html = [
    '<!doctype html><html><body>',
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>You have been invited to take the assessment <strong>${escapeHtml(input.assessmentName)}</strong>.</p>`,
    ...(deadlineLine ? [`<p>${escapeHtml(deadlineLine)}</p>`] : []),
    `<p><a href="${url}">Start the assessment</a></p>`,
    `<p>Or open this link: ${url}</p>`,
    '<p>This link is personal: please do not share it.</p>',
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
};
