import { escapeHtml, html, SafeHtml } from '../../../src/board/html';
import { renderMarkdown } from '../../../src/board/markdown';

describe('the board escapes what it renders', () => {
  it('escapes every interpolated value, and only SafeHtml passes as it is', () => {
    const hostile = `<script>alert("x")</script>&'`;
    const out = html`<p title="${hostile}">${hostile}${['<i>', new SafeHtml('<b>ok</b>')]}${null}${false}</p>`
      .value;
    expect(out).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&lt;i&gt;<b>ok</b></p>',
    );
    expect(escapeHtml('a < b > c')).toBe('a &lt; b &gt; c');
  });

  it("renders a reply's Markdown after escaping all of its HTML", () => {
    const reply = [
      '# Done',
      '',
      'I **fixed** the `<div>` in *one* place: <img src=x onerror=alert(1)>',
      '',
      '- first',
      '- second',
      '',
      '```',
      '<script>steal()</script>',
      '```',
      '[click](javascript:alert(1))',
    ].join('\n');
    const out = renderMarkdown(reply).value;
    expect(out).toContain('<h3>Done</h3>');
    expect(out).toContain('<strong>fixed</strong>');
    expect(out).toContain('<code>&lt;div&gt;</code>');
    expect(out).toContain('<em>one</em>');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(out).toContain('<ul><li>first</li><li>second</li></ul>');
    expect(out).toContain('<pre><code>&lt;script&gt;steal()&lt;/script&gt;</code></pre>');
    expect(out).not.toMatch(/<(script|img|a)\b/);
  });
});
