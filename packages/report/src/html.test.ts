import { describe, expect, it } from 'vitest';
import { escapeHtml, html, jsonForScript, rawHtml } from './html';

describe('escapeHtml', () => {
  it('should escape markup characters and quotes', () => {
    expect(escapeHtml(`<img src=x onerror="a('b')">&`)).toBe(
      '&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;',
    );
  });
});

describe('jsonForScript', () => {
  it('should keep a closing script tag in a string from ending the element', () => {
    const text = jsonForScript({ note: '</script><script>alert(1)</script>' });
    expect(text).not.toContain('</script');
    expect(JSON.parse(text)).toEqual({
      note: '</script><script>alert(1)</script>',
    });
  });
});

describe('html', () => {
  it('should escape interpolated text and keep marked markup', () => {
    const page = html`<p title="${'"x"'}">${'<b>'}${rawHtml('<i>ok</i>')}${[1, ' & ', undefined, false]}</p>`;
    expect(page.value).toBe(
      '<p title="&quot;x&quot;">&lt;b&gt;<i>ok</i>1 &amp; </p>',
    );
  });
});
