// The one XML writer: names as .NET's XmlConvert encodes them, text escaped with the characters
// XML 1.0 cannot carry dropped, empty elements as the wire format writes them (`<a />`), and no
// other place in src/ that writes an XML declaration of its own.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { XML_DECLARATION, element, elementName, escapeXml, wrap, xmlDocument } from '../../src/common/xml-writer.js';
import { repositoryRoot } from '../helpers/cli.js';

t.test('element names: invalid characters and escape-like underscores as _xHHHH_', async (t) => {
  t.equal(elementName('/var/lib'), '_x002F_var_x002F_lib');
  t.equal(elementName('9lives'), '_x0039_lives');
  t.equal(elementName('a b'), 'a_x0020_b');
  t.equal(elementName('_x002F_'), '_x005F_x002F_', 'an underscore that reads as an escape is escaped');
  t.equal(elementName('_xml'), '_xml', 'one that does not is kept');
  t.equal(elementName('snake_case'), 'snake_case');
  t.equal(elementName(''), '_');
});

t.test('text and elements', async (t) => {
  t.equal(escapeXml('a<b & "c">'), 'a&lt;b &amp; &quot;c&quot;&gt;');
  t.equal(escapeXml('bell\u0007 tab\t'), 'bell tab\t', 'control characters XML forbids are dropped');
  t.equal(element('link', ''), '<link />', 'an empty element with the space the wire format has');
  t.equal(element('a', 'b'), '<a>b</a>');
  t.equal(wrap('result', ''), '<result></result>');
  t.equal(xmlDocument('Stats', '<a>1</a>'), '<?xml version="1.0" encoding="utf-8"?><Stats><a>1</a></Stats>');
  t.equal(XML_DECLARATION, '<?xml version="1.0" encoding="utf-8"?>');
});

t.test('no other source file writes an XML declaration', async (t) => {
  const writers = readdirSync(join(repositoryRoot, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => readFileSync(file, 'utf8').includes('<?xml version'));
  t.same(writers.map((file) => file.slice(repositoryRoot.length)), ['src/common/xml-writer.ts']);
});
