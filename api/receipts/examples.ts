import { example } from '../lib/examples.ts';

/** The examples of the OpenAPI document for receipts: those of the example sale (api/sales/examples.ts), receipt no 1 of Boutique Awa. */

export const ESCPOS_RECEIPT = example({
  format: 'escpos',
  width: 58,
  columns: 32,
  base64:
    'G0AbdBAbYQEbRQFCb3V0aXF1ZSBBd2EKG2EAG0UALS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0tLS0KUmXndSBusCAxCkRhdGUgOiAyMS8xMS8yMDI2IDEwOjE0CkNhaXNzaWVyIDogQXdhIE5kaWF5ZQpD',
});

export const TEXT_RECEIPT = example({
  format: 'text',
  style: 'chat',
  text: [
    '*Boutique Awa*', '----------', 'Reçu n° 1', 'Date : 21/11/2026 10:14', 'Caissier : Awa Ndiaye', 'Client : Jean-Pierre Mbarga', '----------',
    'Riz parfumé 5 kg', '2 x 4 500 FCFA : 9 000 FCFA', 'Huile Mayor 1 L', '3 x 1 350 FCFA : 4 050 FCFA',
    'Savon Azur', '4 x 250 FCFA : 1 000 FCFA', 'Promotion : -250 FCFA', 'Sucre Sosucam 1 kg', '1,5 x 1 100 FCFA : 1 650 FCFA',
    'Lait Nido 400 g', '1 x 3 200 FCFA : 3 200 FCFA', 'Remise : -200 FCFA', '----------',
    'Sous-total : 18 900 FCFA', 'Remises : -200 FCFA', 'Promotions : -250 FCFA', '*TOTAL : 18 450 FCFA*', '----------',
    'TVA 19,25 % : 2 978 FCFA', 'Base HT : 15 472 FCFA', '----------',
    'Espèces : 11 000 FCFA', 'MTN MoMo : 8 000 FCFA', 'Réf. MP240611.1532.A81234', 'Monnaie rendue : 550 FCFA', '----------',
    'Points gagnés : 184', '',
  ].join('\n'),
});

/** A short link on the service's public address: `/s/` and 12 letters and digits. */
const SHARED = 'https://pos.example.cm/s/Kq7Rw2ZtB9xM';

export const SHARED_LINKS = example({
  url: SHARED,
  pdf_url: `${SHARED}/pdf`,
  receipt_url: `${SHARED}/receipt`,
  invoice_url: `${SHARED}/print`,
  expires_at: '2026-11-28T09:14:32.000Z',
});
