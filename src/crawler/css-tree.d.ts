// Types of the two css-tree entry points the crawler loads: the tokenizer and its decoders, without the parser and
// lexer (the package's main entry loads those too, about 0.1 s more for every parser thread).
declare module 'css-tree/tokenizer' {
  export { tokenize, tokenTypes } from 'css-tree';
}

declare module 'css-tree/utils' {
  /** The value of a <string-token>'s source text (quotes and escapes resolved). */
  export const string: { decode(source: string): string };
  /** The URL of a <url-token>'s source text, `url(…)`. */
  export const url: { decode(source: string): string };
}
