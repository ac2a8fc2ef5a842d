// The manuals bench:relevance measures: the tuning corpus first, then those only ever measured.
import { APACHE } from './apache.js';
import type { Corpus } from './known-item.js';
import { POSTGRESQL } from './postgresql.js';
import { PYTHON } from './python.js';
import { SQLITE } from './sqlite.js';

export const CORPORA: Corpus[] = [POSTGRESQL, APACHE, PYTHON, SQLITE];
