// The REST form of the link report, as /v1/…/link-report answers it.
import type { LinkReport } from '../../../model/types.js';

export function formatJson(r: LinkReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}
