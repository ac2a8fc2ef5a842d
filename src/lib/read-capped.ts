// A bounded read of a stream (request bodies, a remote service's answers).

/** Reads a stream whole, at most maxBytes: past that, throws what tooLarge() gives (after it has let the stream go). */
export async function readCapped(
  stream: AsyncIterable<unknown>,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
