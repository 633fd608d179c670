import { jsonBlock } from './components.js';
import { html } from './html.js';

describe('html templates', () => {
  it('escapes every interpolated value, in text and in attributes', () => {
    const name = `<script>alert("x")</script> & 'quotes'`;
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</p>',
    );
  });

  it('keeps nested templates as markup, joins lists, and drops null, undefined and false', () => {
    const items = ['a<b', 'c'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.text).toBe('<ul><li>a&lt;b</li><li>c</li></ul>0');
  });

  it('colours JSON without letting a string value out of its element', () => {
    const block = jsonBlock({ email: '"</code><script>x</script>', count: 3, ok: true, none: null }).text;
    expect(block).not.toContain('<script>');
    expect(block).toContain('<span class="j-key">&quot;email&quot;</span>:');
    expect(block).toContain('<span class="j-str">&quot;\\&quot;&lt;/code&gt;&lt;script&gt;x&lt;/script&gt;&quot;</span>');
    expect(block).toContain('<span class="j-num">3</span>');
    expect(block).toContain('<span class="j-lit">true</span>');
    expect(block).toContain('<span class="j-lit">null</span>');
  });

  it('does not colour digits inside strings', () => {
    expect(jsonBlock({ id: 'cand_9x1' }).text).toContain('<span class="j-str">&quot;cand_9x1&quot;</span>');
  });
});
