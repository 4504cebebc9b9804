// The YAML subset reader the deployment tests read deploy/ with: what it reads, and that it
// refuses what another YAML reader might read differently.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseYaml, parseYamlDocuments, YamlSubsetError } from './yaml-subset.ts';

describe('the YAML subset reader', () => {
  test('reads nested mappings, sequences of scalars and of mappings, and scalars of each type', () => {
    const source = [
      '# a comment',
      'name: genmedia   # a trailing comment',
      'count: 2',
      'ratio: 0.5',
      'negative: -3',
      'on_off: true',
      'off_on: false',
      'nothing:',
      'tilde: ~',
      'empty_map: {}',
      'empty_list: []',
      'duration: 10s',
      'url: http://s3:9000/a#b',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Compose interpolation, read as text
      'interpolated: ${NAME:-default}',
      'nested:',
      '  deeper:',
      '    key: value',
      '  sibling: 1',
      'list:',
      '  - a',
      '  - "b: c # not a comment"',
      "  - 'it''s'",
      'same_indent_list:',
      '- x',
      '- z',
      'maps:',
      '  - name: first',
      '    port: 3000',
      '    inner:',
      '      - 1',
      '  - name: second',
      '  -',
      '    name: third',
      'flow: ["CMD", "pg_isready", "--username=genmedia"]',
      'flow_map: {"a": [1, 2]}',
      '"quoted key": "\\u00e9\\n"',
      'app.kubernetes.io/name: genmedia',
    ].join('\n');
    assert.deepEqual(parseYaml(source), {
      name: 'genmedia',
      count: 2,
      ratio: 0.5,
      negative: -3,
      on_off: true,
      off_on: false,
      nothing: null,
      tilde: null,
      empty_map: {},
      empty_list: [],
      duration: '10s',
      url: 'http://s3:9000/a#b',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Compose interpolation, read as text
      interpolated: '${NAME:-default}',
      nested: { deeper: { key: 'value' }, sibling: 1 },
      list: ['a', 'b: c # not a comment', "it's"],
      same_indent_list: ['x', 'z'],
      maps: [{ name: 'first', port: 3000, inner: [1] }, { name: 'second' }, { name: 'third' }],
      flow: ['CMD', 'pg_isready', '--username=genmedia'],
      flow_map: { a: [1, 2] },
      'quoted key': 'é\n',
      'app.kubernetes.io/name': 'genmedia',
    });
  });

  test('reads documents separated by ---, skipping empty ones', () => {
    assert.deepEqual(parseYamlDocuments('---\na: 1\n---\n# only a comment\n---\nb: [2]\n'), [{ a: 1 }, { b: [2] }]);
    assert.throws(() => parseYaml('a: 1\n---\nb: 2\n'), /expected one document, found 2/);
  });

  test('refuses what YAML 1.1 and 1.2 read differently, and what is outside the subset, naming the line', () => {
    const refused: Array<[string, RegExp]> = [
      ['a: yes', /line 1: "yes" reads differently/],
      ['a: Off', /"Off" reads differently/],
      ['a: True', /"True" reads differently/],
      ['a: 0755', /"0755" may read as a number/],
      ['a: 1e3', /"1e3" may read as a number/],
      ['a: 0x1f', /"0x1f" may read as a number/],
      ['a: 8080:3000', /"8080:3000" may read as a number/],
      ['a: .inf', /"\.inf" is a number/],
      ['a: &anchor 1', /anchors, aliases, tags, block scalars/],
      ['a: *anchor', /anchors, aliases, tags, block scalars/],
      ['a: !!str 1', /anchors, aliases, tags, block scalars/],
      ['a: |\n  text', /anchors, aliases, tags, block scalars/],
      ['a: >\n  text', /anchors, aliases, tags, block scalars/],
      ['a: 1\na: 2', /line 2: the key "a" appears twice/],
      ['a:\n\tb: 1', /line 2: tabs are not allowed/],
      ['a: one\n  two', /line 2: unexpected indentation/],
      ['a: [1, b]', /a flow collection must be written as JSON/],
      ['a: "open', /unterminated/],
      ['a: b: c', /must be quoted/],
      ['just text', /expected "key: value"/],
      ['- - a', /a sequence directly in a sequence item/],
      ['a:\n  - 1\n  b: 2', /line 3: expected "key: value"|line 3: unexpected indentation/],
      ['%YAML 1.2\n---\na: 1', /outside the subset/],
    ];
    for (const [source, message] of refused) {
      assert.throws(
        () => parseYamlDocuments(source),
        (err: unknown) => {
          assert.ok(err instanceof YamlSubsetError, `${source}: ${String(err)}`);
          assert.match(err.message, message, source);
          return true;
        },
      );
    }
  });
});
