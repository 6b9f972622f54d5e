/**
 * JavaScript split into tokens for the projection editor's highlighting. The editor shows the
 * tokens as text nodes in coloured spans under a transparent textarea, so the highlight never
 * changes what is typed: joined back, the tokens are exactly the source.
 */
export type TokenKind = 'comment' | 'string' | 'number' | 'keyword' | 'builtin' | 'plain';

export interface Token {
  kind: TokenKind;
  text: string;
}

const KEYWORDS = new Set([
  'break', 'case', 'catch', 'const', 'continue', 'default', 'delete', 'do', 'else', 'false', 'finally', 'for',
  'function', 'if', 'in', 'instanceof', 'let', 'new', 'null', 'of', 'return', 'switch', 'this', 'throw', 'true',
  'try', 'typeof', 'undefined', 'var', 'void', 'while',
]);

/** The projection API's own functions, shown apart from the language's words. */
const BUILTINS = new Set([
  'fromAll', 'fromStream', 'fromStreams', 'fromCategory', 'fromCategories', 'foreachStream', 'partitionBy', 'when',
  'outputState', 'transformBy', 'filterBy', 'outputTo', 'emit', 'linkTo', 'copyTo', 'linkStreamTo', 'log', 'options',
]);

// One alternative per kind; the order settles overlaps (a comment before a division sign).
const TOKEN = /(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|`(?:[^`\\]|\\[\s\S])*`?)|(\b(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\b)|([A-Za-z_$][A-Za-z0-9_$]*)/g;

function wordKind(word: string): TokenKind {
  if (KEYWORDS.has(word)) return 'keyword';
  if (BUILTINS.has(word)) return 'builtin';
  return 'plain';
}

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  const push = (kind: TokenKind, text: string) => {
    const last = tokens.at(-1);
    if (last && last.kind === kind && kind === 'plain') last.text += text;
    else tokens.push({ kind, text });
  };
  let index = 0;
  for (const match of source.matchAll(TOKEN)) {
    const start = match.index;
    if (start > index) push('plain', source.slice(index, start));
    const [text, comment, string, number, word] = match;
    if (comment !== undefined) push('comment', text);
    else if (string !== undefined) push('string', text);
    else if (number !== undefined) push('number', text);
    else push(wordKind(word), text);
    index = start + text.length;
  }
  if (index < source.length) push('plain', source.slice(index));
  return tokens;
}
