// STUB — owned by the search work (issue 3). Full-text search over pages_fts and deletion by exact URL.
import type { TargetConfig } from '../../config/schema.js';
import { BackendError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { DeletePagesResult, SearchParams, SearchResults } from '../types.js';

export function searchPages(_store: Store, _terms: string, _params: SearchParams): SearchResults {
  throw new BackendError('not_implemented', 'search is not implemented yet');
}

export function deletePages(_store: Store, _targets: TargetConfig[], _urls: string[]): DeletePagesResult {
  throw new BackendError('not_implemented', 'page deletion is not implemented yet');
}
