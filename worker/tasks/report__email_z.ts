import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { renderPdf } from '../../api/lib/pdf.ts';
import { cleanText } from '../../api/receipts/format.ts';
import { LOGO_CID, renderZEmailHtml, renderZEmailText, StoredZ, zEmailSubject, zPdfDefinition, zPdfFileName, type ZLogo, type ZShop } from '../../api/reports/z-document.ts';
import type { WorkerContext } from '../context.ts';
import { mailShopStaff } from '../mailer.ts';

const Payload = z.object({ shop_id: z.uuid(), day: z.iso.date() });

interface Found extends ZShop {
  locale: string;
  email: string | null;
  z_no: string;
  day: string;
  report: unknown;
  logo_media_type: string | null;
  logo_width: number | null;
  logo_height: number | null;
  logo_content: Buffer | null;
}

/**
 * The sealed Z of one shop's day (queued by its sealing, report__seal_z), mailed to the shop's owners
 * in the shop's language, from the shop's name, answered at the shop's e-mail: the figures to read at
 * a glance on a phone, the whole Z as a PDF attached (api/reports/z-document.ts). It reads the stored
 * Z, which never changes. Safe to run twice: each owner's mail is sent once (sendOnce, keyed by shop,
 * day and recipient).
 */
export function reportEmailZ(ctx: WorkerContext): Task {
  return async (rawPayload, helpers) => {
    const { shop_id, day } = Payload.parse(rawPayload);
    const { rows } = await helpers.query<Found>(
      `select s.name, s.locale, s.email, s.address, s.city, s.phone, s.tax_id, s.trade_register_no, s.payment_method_labels,
              z.z_no::text, z.day::text, z.report,
              l.media_type as logo_media_type, l.width as logo_width, l.height as logo_height, l.content as logo_content
         from z_reports z join shops s on s.id = z.shop_id left join shop_logos l on l.shop_id = z.shop_id
        where z.shop_id = $1 and z.day = $2::date`,
      [shop_id, day],
    );
    const found = rows[0];
    if (!found) return;
    const locale = found.locale === 'en' ? 'en' : 'fr';
    // The number and the day are the row's own, whatever the stored report holds.
    const report = StoredZ.parse({ ...(found.report as object), z_no: Number(found.z_no), date: found.day });
    const logo: ZLogo | null = found.logo_content
      ? { media_type: found.logo_media_type!, width: found.logo_width!, height: found.logo_height!, content: found.logo_content }
      : null;
    const pdf = await renderPdf(zPdfDefinition(report, found, locale, logo));
    const recipients = await mailShopStaff(
      ctx.mailer,
      helpers.query,
      shop_id,
      ['owner'],
      {
        subject: zEmailSubject(found, report, locale),
        text: renderZEmailText(report, found, locale),
        html: renderZEmailHtml(report, found, locale, logo),
        fromName: cleanText(found.name),
        ...(found.email ? { replyTo: found.email } : {}),
        attachments: [
          { filename: zPdfFileName(report), content: pdf, contentType: 'application/pdf' },
          ...(logo ? [{ filename: `logo.${logo.media_type === 'image/png' ? 'png' : 'jpg'}`, content: logo.content, contentType: logo.media_type, cid: LOGO_CID }] : []),
        ],
      },
      `z-report.${shop_id}.${day}`,
    );
    ctx.log.info({ task: 'report__email_z', shop_id, day, recipients }, 'Z report mailed');
  };
}
