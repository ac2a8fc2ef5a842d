// STUB — owned by the REST/report work (issue 4). Builds the REST form of the link report from the store only.
import type { TargetConfig } from '../../config/schema.js';
import { BackendError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { LinkReport, LinkReportQuery } from '../types.js';

export function buildLinkReport(_store: Store, _project: string, _targets: TargetConfig[], _query: LinkReportQuery): LinkReport {
  throw new BackendError('not_implemented', 'the link report is not implemented yet');
}
