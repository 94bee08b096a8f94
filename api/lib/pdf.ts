/**
 * PDF documents without a browser (CONTRACT section 15): pdfmake lays out a declarative document
 * (tables that break across pages and repeat their header rows, a footer per page that knows the page
 * count) and pdfkit under it writes the PDF. Roboto, which pdfmake ships as TrueType files, is embedded
 * (subset to the glyphs used): every accent prints the same in every reader, whatever its fonts.
 *
 * pdfmake may fetch images and fonts by URL or read them from disk when a document names them: it is
 * allowed neither URLs nor any file but its own fonts. Images come in as data URLs (the shop's logo).
 *
 * pdfmake and its fonts load on the first document, not at start-up: a web process that never
 * prints a PDF never pays for them.
 */
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import type { TDocumentDefinitions } from 'pdfmake/interfaces.js';

export type PdfDefinition = TDocumentDefinitions;

/** The font every document uses; bold is Roboto Medium. */
export const PDF_FONT = 'Roboto';

/**
 * The till receipt's font (api/receipts/pdf.ts), whose lines are padded for a printer's fixed
 * columns: Roboto Mono, as TrueType files from npm, embedded as Roboto is.
 */
export const PDF_MONO_FONT = 'RobotoMono';

type PdfMake = typeof import('pdfmake');

let engine: Promise<PdfMake> | null = null;

function loadEngine(): Promise<PdfMake> {
  engine ??= (async () => {
    const require = createRequire(import.meta.url);
    const pdfmake = require('pdfmake') as PdfMake;
    const fonts = join(dirname(require.resolve('pdfmake/package.json')), 'fonts', 'Roboto');
    const monoFonts = dirname(require.resolve('@expo-google-fonts/roboto-mono/package.json'));
    pdfmake.setFonts({
      [PDF_FONT]: {
        normal: join(fonts, 'Roboto-Regular.ttf'),
        bold: join(fonts, 'Roboto-Medium.ttf'),
        italics: join(fonts, 'Roboto-Italic.ttf'),
        bolditalics: join(fonts, 'Roboto-MediumItalic.ttf'),
      },
      [PDF_MONO_FONT]: {
        normal: join(monoFonts, '400Regular', 'RobotoMono_400Regular.ttf'),
        bold: join(monoFonts, '700Bold', 'RobotoMono_700Bold.ttf'),
        italics: join(monoFonts, '400Regular_Italic', 'RobotoMono_400Regular_Italic.ttf'),
        bolditalics: join(monoFonts, '700Bold_Italic', 'RobotoMono_700Bold_Italic.ttf'),
      },
    });
    pdfmake.setUrlAccessPolicy(() => false);
    pdfmake.setLocalAccessPolicy((path) => path.startsWith(fonts) || path.startsWith(monoFonts));
    return pdfmake;
  })();
  return engine;
}

/**
 * The PDF of a definition. Document metadata (title, author) goes in `info`; the caller sets
 * `pageSize`, margins, footer and content. Deterministic apart from the creation date pdfkit writes.
 */
export async function renderPdf(definition: PdfDefinition): Promise<Buffer> {
  const pdfmake = await loadEngine();
  return pdfmake.createPdf({ ...definition, defaultStyle: { font: PDF_FONT, ...definition.defaultStyle } }).getBuffer();
}

/** A data URL for an image pdfmake embeds (the shop's logo): no file, no fetch. */
export const imageDataUrl = (mediaType: string, content: Uint8Array) => `data:${mediaType};base64,${Buffer.from(content).toString('base64')}`;
