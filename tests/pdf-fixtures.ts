// Hand-built PDFs for the extraction tests: one page whose content stream is given, optionally
// Flate-compressed, and a PDF bomb (one Flate stream that inflates to hundreds of megabytes of
// text operators) compressed as a stream, so the test process never holds the inflated text.
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import zlib from "node:zlib";

type PdfObject = string | { stream: Uint8Array | string; dict?: string };

/** A one-page PDF: `content` is the page's content stream; `extra` objects are numbered from 6. */
export function pdfWithContent(
  content: Uint8Array | string,
  options: { flate?: boolean; fontExtra?: string; extra?: PdfObject[] } = {},
): Uint8Array {
  const objects: PdfObject[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    { stream: content, dict: options.flate ? "/Filter /FlateDecode" : "" },
    `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica ${options.fontExtra ?? ""} >>`,
    ...(options.extra ?? []),
  ];
  const chunks: Buffer[] = [Buffer.from("%PDF-1.4\n")];
  let size = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(size);
    const part =
      typeof object === "string"
        ? Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`)
        : Buffer.concat([
            Buffer.from(
              `${i + 1} 0 obj\n<< /Length ${Buffer.byteLength(object.stream)} ${object.dict ?? ""} >>\nstream\n`,
            ),
            Buffer.from(object.stream),
            Buffer.from("\nendstream\nendobj\n"),
          ]);
    chunks.push(part);
    size += part.length;
  });
  const xref = offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("");
  chunks.push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`,
    ),
  );
  return new Uint8Array(Buffer.concat(chunks));
}

/** A PDF whose one Flate content stream inflates to about `inflatedMb` MB of text operators. */
export async function pdfBomb(inflatedMb: number): Promise<Uint8Array> {
  const line = Buffer.from("(All work and no play makes Jack a dull boy) Tj T*\n");
  const block = Buffer.alloc(line.length * 20_000);
  for (let i = 0; i < block.length; i += line.length) line.copy(block, i);
  const blocks = Math.ceil((inflatedMb * 1024 * 1024) / block.length);
  function* content() {
    yield Buffer.from("BT /F1 12 Tf 14 TL 72 700 Td\n");
    for (let i = 0; i < blocks; i++) yield block;
    yield Buffer.from("ET\n");
  }
  const compressed = await buffer(Readable.from(content()).pipe(zlib.createDeflate({ level: 9 })));
  return pdfWithContent(compressed, { flate: true });
}
