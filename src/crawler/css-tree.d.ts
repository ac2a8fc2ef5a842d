// Types of the two css-tree entry points the crawler loads: the tokenizer and its decoders, without the parser and
// lexer (the package's main entry loads those too, about 0.1 s more for every parser thread).
declare module 'css-tree/tokenizer' {
  /** Splits CSS into tokens (CSS Syntax Level 3), calling onToken with each one's type and source range. */
  export function tokenize(source: string, onToken: (type: number, start: number, end: number) => void): void;
  export const tokenTypes: {
    readonly WhiteSpace: number;
    readonly Comment: number;
    readonly AtKeyword: number;
    readonly Url: number;
    readonly Function: number;
    readonly String: number;
  };
}

declare module 'css-tree/utils' {
  /** The value of a <string-token>'s source text (quotes and escapes resolved). */
  export const string: { decode(source: string): string };
  /** The URL of a <url-token>'s source text, `url(…)`. */
  export const url: { decode(source: string): string };
}
