import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { buildQuery, MAX_QUERY_WORDS, parseTerms } from '../../../src/store/search/query.js';
import { HOSTILE } from '../../support/search-input.js';

describe('query builder', () => {
  it('turns words into quoted FTS5 strings joined with AND, the last one a prefix', () => {
    expect(buildQuery('create table').expression).toBe('"create" AND "table"*');
  });

  it('keeps quoted phrases together and does not make a closed phrase a prefix', () => {
    expect(buildQuery('"create table" syntax').expression).toBe('"create table" AND "syntax"*');
    expect(buildQuery('syntax "create table"').expression).toBe('"syntax" AND "create table"');
  });

  it('treats an unclosed quote as a phrase still being typed (prefix on its last word)', () => {
    expect(buildQuery('"create tab').expression).toBe('"create tab"*');
  });

  it('makes the last word a prefix only from 3 characters on', () => {
    expect(buildQuery('a to').expression).toBe('"a" AND "to"');
    expect(buildQuery('vac').expression).toBe('"vac"*');
  });

  it('turns operators and syntax into plain words or separators', () => {
    expect(buildQuery('NEAR(a b)').expression).toBe('"NEAR" AND "a" AND "b"');
    expect(buildQuery('title:secret -x *').expression).toBe('"title" AND "secret" AND "x"');
    expect(buildQuery('a OR b').expression).toBe('"a" AND "OR" AND "b"');
    // A dash between two words joins them, as typed: the phrase of both (`x-forwarded-for`), never an operator.
    expect(buildQuery('foo-bar').expression).toBe('"foo bar"*');
    expect(buildQuery('foo - bar').expression).toBe('"foo" AND "bar"*');
  });

  it('answers null for text without a searchable word', () => {
    for (const t of ['*', '-', ':', '()', '""', '\u0000', '^', '\u0301']) expect(buildQuery(t).expression).toBeNull();
  });

  it('uses at most MAX_QUERY_WORDS words and cuts absurdly long words', () => {
    const parts = parseTerms('w '.repeat(100).replace(/w/g, () => 'word'));
    expect(parts.reduce((n, p) => n + p.words.length, 0)).toBe(MAX_QUERY_WORDS);
    expect(buildQuery('x'.repeat(10_000)).expression!.length).toBeLessThan(110);
  });

  it('keeps letters of every script, with their accents, for the tokenizer to fold', () => {
    expect(buildQuery('Café Ünïcode 日本').expression).toBe('"Café" AND "Ünïcode" AND "日本"');
  });

  it('produces an expression FTS5 accepts for every hostile input', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize='unicode61 remove_diacritics 2', prefix='3')`);
    db.prepare('INSERT INTO t (a, b) VALUES (?, ?)').run('near and or not word x', 'title secret');
    const stmt = db.prepare('SELECT count(*) FROM t WHERE t MATCH ?').pluck();
    for (const input of HOSTILE) {
      const { expression } = buildQuery(input);
      if (expression === null) continue;
      expect(() => stmt.get(expression), JSON.stringify(input.slice(0, 40))).not.toThrow();
    }
    db.close();
  });
});
