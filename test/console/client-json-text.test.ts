// The console never changes what a user typed or what the node holds: JSON is checked, shown and
// sent as text, so big integers, `1.0` and 2^53+1 keep every character.
import t from 'tap';
import { appendBody } from '../../web/lib/append.js';
import { prettyJson } from '../../web/lib/body.js';
import { isJson, objectMembers, objectText, reindentJson } from '../../web/lib/json-text.js';
import { formOf, metadataOf } from '../../web/lib/metadata.js';
import { randomUuid } from '../../web/lib/uuid.js';

const EXACT = '{"big": 12345678901234567890123, "price": 1.0, "id": 9007199254740993}';

t.test('the append body carries the data and metadata exactly as typed', async (t) => {
  const eventId = randomUuid();
  const checked = appendBody({ eventType: 'Priced', eventId, data: EXACT, metadata: '{"n": 1.50}', expectedVersion: '' });
  t.ok(checked.ok);
  if (checked.ok) {
    t.equal(checked.body, `[{"eventId":"${eventId}","eventType":"Priced","data":${EXACT},"metadata":{"n": 1.50}}]`);
    t.ok(isJson(checked.body), 'the batch is JSON');
  }
});

t.test('re-indenting keeps every token as written', async (t) => {
  t.equal(reindentJson(EXACT), '{\n  "big": 12345678901234567890123,\n  "price": 1.0,\n  "id": 9007199254740993\n}');
  t.equal(reindentJson('{"a":[1,{"b":"x, y: {z}"}],"e":{},"f":[]}'), '{\n  "a": [\n    1,\n    {\n      "b": "x, y: {z}"\n    }\n  ],\n  "e": {},\n  "f": []\n}');
  t.equal(reindentJson('"a \\" quote"'), '"a \\" quote"');
  t.equal(reindentJson('{"a":'), undefined, 'not JSON');
  t.equal(prettyJson('1e400'), '1e400', 'a number no double holds is shown as stored');
});

t.test('object members are the values as written, the last of a repeated key', async (t) => {
  const members = objectMembers('{ "a" : 1.0 , "b":{"c":[1, 2]}, "a": 12345678901234567890123 }');
  t.same(members && [...members], [['b', '{"c":[1,2]}'], ['a', '12345678901234567890123']]);
  t.equal(objectMembers('[1]'), undefined);
  t.equal(objectText([['x', '1.0'], ['y\n', '"z"']]), '{"x":1.0,"y\\n":"z"}');
});

t.test('metadata other properties keep their digits through the form', async (t) => {
  const stored = '{"$maxCount":5,"limit":12345678901234567890123,"rate":1.0}';
  const form = formOf(stored);
  t.equal(form.custom, '{\n  "limit": 12345678901234567890123,\n  "rate": 1.0\n}');
  const written = metadataOf(form);
  t.same(written, { ok: true, json: '{"$maxCount":5,"limit":12345678901234567890123,"rate":1.0}' });
  form.custom = '{"typed": 9007199254740993}';
  t.same(metadataOf(form), { ok: true, json: '{"$maxCount":5,"typed":9007199254740993}' });
});
