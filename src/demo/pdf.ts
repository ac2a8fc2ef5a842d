// Tiny, valid, deterministic PDF documents for the demo site: one A4 page of Helvetica text, a correct
// cross-reference table, no timestamps (the same input always gives the same bytes).

/** A PDF string literal in WinAnsi (Latin-1) with (, ) and \ escaped. */
function pdfString(s: string): string {
  return `(${s.replace(/[\\()]/g, (c) => `\\${c}`).replace(/[^\x20-\xff]/g, '?')})`;
}

export function makePdf(title: string, paragraphs: readonly string[]): Buffer {
  const lines: string[] = [];
  for (const p of paragraphs) {
    // Wrap at ~90 characters: Helvetica 11 pt fits about that on an A4 line with 50 pt margins.
    let line = '';
    for (const word of p.split(/\s+/)) {
      if (line && line.length + word.length + 1 > 90) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line, '');
  }
  const ops = [`BT /F1 18 Tf 50 790 Td ${pdfString(title)} Tj ET`, 'BT /F1 11 Tf 14 TL 50 760 Td'];
  for (const l of lines.slice(0, 50)) ops.push(`${pdfString(l)} Tj T*`);
  ops.push('ET');
  const stream = ops.join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    `<< /Title ${pdfString(title)} /Producer (svc demo site) >>`,
  ];
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((obj, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${obj}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) body += `${String(off).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
