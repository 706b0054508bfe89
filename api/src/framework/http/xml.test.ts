import { describe, expect, it } from 'vitest';
import { toXml } from './xml.ts';

/** Characters an XML 1.0 document may not contain (the Char production of the specification). */
const FORBIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('toXml', () => {
  it('keeps a document well-formed whatever control characters a text holds', () => {
    const description = `bell\u0007 null\u0000 escape\u001b form\u000c lone\ud800 back\udc00 end\uffff`;
    const xml = toXml({ description, name: 'tab\tand\nnewline\r' });
    expect(xml).not.toMatch(FORBIDDEN);
    expect(xml).toContain(
      '<description>bell\ufffd null\ufffd escape\ufffd form\ufffd lone\ufffd back\ufffd end\ufffd</description>',
    );
    expect(xml).toContain('<name>tab\tand\nnewline\r</name>');
  });

  it('keeps characters outside the basic plane (surrogate pairs) and escapes markup', () => {
    const xml = toXml({ name: '🎵 <a & b>' });
    expect(xml).toContain('<name>🎵 &lt;a &amp; b&gt;</name>');
  });
});
