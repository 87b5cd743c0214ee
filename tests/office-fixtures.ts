// Office documents made here: a DOCX and a PPTX as zips of hand-written XML (the parts the
// formats require and a reader looks at), an XLSX written by exceljs.
import ExcelJS from "exceljs";
import JSZip from "jszip";

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

async function zip(parts: Record<string, string>): Promise<Uint8Array> {
  const archive = new JSZip();
  for (const [name, content] of Object.entries(parts)) archive.file(name, content);
  return archive.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

export type DocxBlock = { heading: string; level?: number } | { paragraph: string } | { table: string[][] };

/** A Word document of headings (styles "heading N"), paragraphs and tables. */
export function docx(blocks: DocxBlock[]): Promise<Uint8Array> {
  const run = (text: string) => `<w:r><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r>`;
  const body = blocks
    .map((block) => {
      if ("heading" in block)
        return `<w:p><w:pPr><w:pStyle w:val="Heading${block.level ?? 1}"/></w:pPr>${run(block.heading)}</w:p>`;
      if ("paragraph" in block) return `<w:p>${run(block.paragraph)}</w:p>`;
      const rows = block.table.map(
        (row) => `<w:tr>${row.map((cell) => `<w:tc><w:p>${run(cell)}</w:p></w:tc>`).join("")}</w:tr>`,
      );
      return `<w:tbl>${rows.join("")}</w:tbl>`;
    })
    .join("");
  const headingStyles = [1, 2, 3]
    .map(
      (level) => `<w:style w:type="paragraph" w:styleId="Heading${level}"><w:name w:val="heading ${level}"/></w:style>`,
    )
    .join("");
  return zip({
    "[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>`,
    "_rels/.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    "word/_rels/document.xml.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
    "word/styles.xml": `<?xml version="1.0" encoding="UTF-8"?><w:styles ${W}>${headingStyles}</w:styles>`,
    "word/document.xml": `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${body}</w:body></w:document>`,
  });
}

export interface Slide {
  title: string;
  bullets?: string[];
  table?: string[][];
}

/**
 * A PowerPoint deck: each slide a title placeholder, a text box of bullets and an optional table,
 * stored as ppt/slides/slide1.xml, slide2.xml… in the order given. `shownOrder` (indexes into
 * `slides`) is the order the deck shows them in, as after moving slides in PowerPoint: the
 * presentation lists them so, through its relationships; by default the stored order.
 */
export function pptx(slides: Slide[], shownOrder: number[] = slides.map((_, i) => i)): Promise<Uint8Array> {
  const ns =
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  const paragraph = (text: string) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${escapeXml(text)}</a:t></a:r></a:p>`;
  const slideXml = (slide: Slide) => {
    const title = `<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody>${paragraph(slide.title)}</p:txBody></p:sp>`;
    const bullets = slide.bullets
      ? `<p:sp><p:nvSpPr><p:cNvPr id="3" name="Content 2"/><p:cNvSpPr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:txBody>${slide.bullets.map(paragraph).join("")}</p:txBody></p:sp>`
      : "";
    const table = slide.table
      ? `<p:graphicFrame><a:graphic><a:graphicData><a:tbl>${slide.table
          .map(
            (row) =>
              `<a:tr>${row.map((cell) => `<a:tc><a:txBody>${paragraph(cell)}</a:txBody></a:tc>`).join("")}</a:tr>`,
          )
          .join("")}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
      : "";
    return `<?xml version="1.0" encoding="UTF-8"?><p:sld ${ns}><p:cSld><p:spTree>${title}${bullets}${table}</p:spTree></p:cSld></p:sld>`;
  };
  const parts: Record<string, string> = {
    "[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`,
    "ppt/presentation.xml": `<?xml version="1.0" encoding="UTF-8"?><p:presentation ${ns}><p:sldIdLst>${shownOrder.map((slide) => `<p:sldId id="${256 + slide}" r:id="rId${slide + 1}"/>`).join("")}</p:sldIdLst></p:presentation>`,
    "ppt/_rels/presentation.xml.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${slides.map((_, i) => `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide${i + 1}.xml"/>`).join("")}</Relationships>`,
  };
  // Numbered past 9, so that slide 10 sorting before slide 2 by name would show.
  slides.forEach((slide, i) => (parts[`ppt/slides/slide${i + 1}.xml`] = slideXml(slide)));
  return zip(parts);
}

/** A workbook with one worksheet per entry, the first row of each its header. */
export async function xlsx(sheets: Record<string, (string | number)[][]>): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}
